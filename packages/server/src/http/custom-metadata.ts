import { invalidField } from './errors';

export const CUSTOM_METADATA_MAX_BYTES = 1_000_000;

/** custom_metadata is a JSON object of at most 1,000,000 bytes serialised (spec 2 section 5). */
export function checkCustomMetadata(value: unknown, field = 'custom_metadata'): void {
  if (value === undefined || value === null) return;
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > CUSTOM_METADATA_MAX_BYTES) throw invalidField(field, 'too_large', { max_bytes: CUSTOM_METADATA_MAX_BYTES, bytes });
}
