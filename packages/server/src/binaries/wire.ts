/** The wire shapes of binaries and their parts (api-contract.md section 3). */
import { organizationPrn, resourcePrn } from '../http/prn';
import { toRfc3339 } from '../http/time';
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
    inserted_at: toRfc3339(row.insertedAt),
    updated_at: toRfc3339(row.updatedAt),
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
    inserted_at: toRfc3339(row.insertedAt),
    updated_at: toRfc3339(row.updatedAt),
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
    inserted_at: toRfc3339(row.insertedAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}
