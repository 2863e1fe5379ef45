/** The wire shapes of binaries and their parts (site/docs/canopy-core/reference/binary-management/index.md). */
import { organizationPrn, resourcePrn } from '../core/prn';
import { timestampsOf } from '../http/wire-fields';
import type { binaries, binaryParts, binarySignatures } from './schema';

export type BinaryRow = typeof binaries.$inferSelect;
export type PartRow = typeof binaryParts.$inferSelect;
export type SignatureRow = typeof binarySignatures.$inferSelect;

export function signatureToWire(row: SignatureRow) {
  return {
    prn: resourcePrn(row.organizationId, 'binary_signature', row.id),
    organization_prn: organizationPrn(row.organizationId),
    binary_prn: resourcePrn(row.organizationId, 'binary', row.binaryId),
    signing_key_prn: resourcePrn(row.organizationId, 'signing_key', row.signingKeyId),
    signature: row.signature,
    ...timestampsOf(row),
  };
}

export function binaryToWire(row: BinaryRow, signatures: SignatureRow[]) {
  return {
    prn: resourcePrn(row.organizationId, 'binary', row.id),
    organization_prn: organizationPrn(row.organizationId),
    artifact_version_prn: resourcePrn(row.organizationId, 'artifact_version', row.artifactVersionId),
    hash: row.hash,
    size: row.size,
    target: row.target,
    description: row.description,
    custom_metadata: row.customMetadata,
    state: row.state,
    revision: row.revision,
    hash_error: row.hashError,
    signatures: signatures.map((s) => ({ signature: s.signature, signing_key_prn: resourcePrn(s.organizationId, 'signing_key', s.signingKeyId) })),
    ...timestampsOf(row),
  };
}

export function partToWire(row: PartRow) {
  return {
    prn: resourcePrn(row.organizationId, 'binary_part', row.id),
    organization_prn: organizationPrn(row.organizationId),
    binary_prn: resourcePrn(row.organizationId, 'binary', row.binaryId),
    index: row.index,
    size: row.size,
    hash: row.hash,
    expected_binary_size: row.expectedBinarySize,
    state: row.state,
    ...timestampsOf(row),
  };
}
