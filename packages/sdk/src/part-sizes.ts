/**
 * How a binary is cut into parts, without any I/O (shared by the Node planner, part-plan.ts, and
 * the browser's, blob-plan.ts). Parts are 5 MiB..5 GiB except the last, and at most 10,000
 * (site/docs/canopy-core/reference/binary-management/index.md, "Binary part").
 */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;
export const MAX_PARTS = 10_000;
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

export interface PlannedPart {
  /** 1-based, as the API numbers parts. */
  index: number;
  offset: number;
  size: number;
  /** Lowercase hex SHA-256 of the part's bytes. */
  hash: string;
  /** Base64 of the same digest, for `x-amz-checksum-sha256`. */
  checksumBase64: string;
}

/** A file's size, whole hash and parts, wherever its bytes are (a path, a browser Blob). */
export interface PartPlan {
  size: number;
  /** Lowercase hex SHA-256 of the whole file. */
  hash: string;
  partSize: number;
  parts: PlannedPart[];
}

export function choosePartSize(fileSize: number, requested = DEFAULT_PART_SIZE): number {
  if (requested < MIN_PART_SIZE || requested > MAX_PART_SIZE) throw new RangeError(`part size must be between ${MIN_PART_SIZE} and ${MAX_PART_SIZE} bytes`);
  // Grow the part size for huge files rather than exceed the part count limit.
  return Math.max(requested, Math.ceil(fileSize / MAX_PARTS));
}
