/**
 * The delta archive's description (`delta.json`, docs/decisions/009-delta-updates.md): what the
 * server writes beside the segments' patches and the daemon reads back before rebuilding.
 */
export const DELTA_FORMAT = 'canopy-zstd-segments-1';

export interface DeltaDescription {
  format: typeof DELTA_FORMAT;
  segment_bytes: number;
  margin_bytes: number;
  window_log: number;
  base: { size: number; sha256: string };
  target: { size: number; sha256: string };
  segments: number;
}
