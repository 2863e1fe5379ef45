/** The wire shape of a bundle signature: a binary signature's, with the bundle and the target. */
import { Type } from 'typebox';
import { organizationPrn, resourcePrn } from '../core/prn';
import { Nullable, Prn, ResourceFields } from '../http/schemas';
import { timestampsOf } from '../http/wire-fields';
import type { BundleSignatureRow } from './service';

export const BundleSignature = Type.Object({
  ...ResourceFields,
  bundle_prn: Prn('The signed bundle.'),
  signing_key_prn: Prn('The key that made the signature.'),
  signature: Type.String({ description: "Lowercase hex Ed25519 signature over the canonical message of the bundle's binaries." }),
  target: Nullable(Type.String({ description: 'The target whose binaries were signed; null: the binaries of every target.' })),
});

export function bundleSignatureToWire(row: BundleSignatureRow) {
  return {
    prn: resourcePrn(row.organizationId, 'bundle_signature', row.id),
    organization_prn: organizationPrn(row.organizationId),
    bundle_prn: resourcePrn(row.organizationId, 'bundle', row.bundleId),
    signing_key_prn: resourcePrn(row.organizationId, 'signing_key', row.signingKeyId),
    signature: row.signature,
    target: row.target || null,
    ...timestampsOf(row),
  };
}

/** A bundle signature as the device API hands it with the bundle: the key's PEM beside it. */
export const DeviceBundleSignature = Type.Object({
  signature: Type.String({ description: "128 hex characters: Ed25519 over the canonical message of the bundle's binaries." }),
  signing_key_prn: Prn('The signing key.'),
  public_value: Type.String({ description: 'The signing key as PEM (SPKI).' }),
  target: Nullable(Type.String({ description: 'The target whose binaries were signed; null: every target.' })),
});
