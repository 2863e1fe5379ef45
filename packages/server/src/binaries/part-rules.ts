/**
 * When a binary's parts make a whole upload (the uploadable -> hashable check): indices 1..n
 * with no gap, every part valid and declared for this binary's size, every part but the last at
 * least 5 MiB (S3's multipart rule, which the API follows), and the sizes adding up.
 */
export const PART_SIZE_MIN = 5 * 1024 * 1024;
export const PART_SIZE_MAX = 5 * 1024 * 1024 * 1024;
export const PART_INDEX_MAX = 10_000;

export interface PartFacts {
  index: number;
  size: number;
  state: string;
  expectedBinarySize: number;
}

/** Null when the parts are complete, else the reason (for the 409's context). */
export function checkPartsComplete(binarySize: number, parts: PartFacts[]): Record<string, unknown> | null {
  const sorted = [...parts].sort((a, b) => a.index - b.index);
  let total = 0;
  for (const [i, part] of sorted.entries()) {
    if (part.index !== i + 1) return { reason: 'missing_part', index: i + 1 };
    if (part.state !== 'valid') return { reason: 'part_not_valid', index: part.index, part_state: part.state };
    if (part.expectedBinarySize !== binarySize) return { reason: 'part_for_other_size', index: part.index };
    if (i < sorted.length - 1 && part.size < PART_SIZE_MIN) return { reason: 'part_too_small', index: part.index, min: PART_SIZE_MIN };
    total += part.size;
  }
  if (total !== binarySize) return { reason: 'size_mismatch', parts_total: total, size: binarySize };
  return null;
}
