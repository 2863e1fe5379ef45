/**
 * One consistent reading of a release's rollout counts (`GET /releases/{prn}/rollout`): the
 * cohort split into buckets that never overlap nor exceed it, each with its share. A device
 * whose latest report is `installed` counts as on the release even before its next check says
 * so (so "installed" can never be ahead of "on it"). Statuses this console does not know are
 * counted as in progress under their own name, so a newer server's counts are not lost. On a
 * release with a soak only `confirmed` devices are on it: `installed` ones are still soaking
 * (counted as in progress, shown as "soaking").
 */
export type BucketKey = 'on_it' | 'in_progress' | 'failed' | 'waiting' | 'not_offered';

export interface RolloutCounts {
  cohort_devices: number;
  eligible: number;
  on_release: number;
  claimed?: number | null;
  reported: Record<string, number | undefined>;
  /** The release's soak; set: `installed` is not success yet. */
  soak_seconds?: number | null;
}

export interface Bucket {
  key: BucketKey;
  label: string;
  count: number;
  /** Share of the cohort, 0..100, rounded to an integer (a non-zero count never shows 0 %). */
  percent: number;
  /** The report statuses counted in this bucket, with their counts (non-zero only). */
  statuses: { status: string; count: number; label: string }[];
}

const DONE = new Set(['installed', 'confirmed', 'succeeded']);
const DONE_AFTER_SOAK = new Set(['confirmed', 'succeeded']);
const doneOf = (soak: boolean | null | undefined) => (soak ? DONE_AFTER_SOAK : DONE);
const FAILED = new Set(['failed', 'rolled_back']);

export const BUCKET_LABELS: Record<BucketKey, string> = {
  on_it: 'On it',
  in_progress: 'Updating',
  failed: 'Failed',
  waiting: 'Offered, not started',
  not_offered: 'Not offered',
};

/** `rolled_back` -> `rolled back`. */
export const statusLabel = (status: string) => status.replace(/_/g, ' ');

export function percentOf(count: number, total: number): number {
  if (total <= 0 || count <= 0) return 0;
  return Math.max(1, Math.round((count / total) * 100));
}

export function summarizeRollout(r: RolloutCounts): { total: number; buckets: Bucket[] } {
  const soak = Boolean(r.soak_seconds);
  const DONE = doneOf(soak);
  const statuses = Object.entries(r.reported)
    .map(([status, n]) => ({ status, count: Number.isFinite(n) ? Math.max(0, Number(n)) : 0, label: soak && status === 'installed' ? 'soaking' : statusLabel(status) }))
    .filter((s) => s.count > 0);
  const sum = (pick: (status: string) => boolean) => statuses.filter((s) => pick(s.status)).reduce((n, s) => n + s.count, 0);
  const installed = sum((s) => DONE.has(s));
  const onIt = Math.max(r.on_release, installed);
  const updating = sum((s) => !DONE.has(s) && !FAILED.has(s));
  const failed = sum((s) => FAILED.has(s));
  // Devices may have left the cohort since they reported: the whole is never smaller than its parts.
  const total = Math.max(r.cohort_devices, onIt + updating + failed);
  const waiting = Math.min(Math.max(0, r.eligible - updating - failed), total - onIt - updating - failed);
  const notOffered = Math.max(0, total - onIt - updating - failed - waiting);
  const counts: Record<BucketKey, number> = { on_it: onIt, in_progress: updating, failed, waiting, not_offered: notOffered };
  const of = (key: BucketKey) => statuses.filter((s) => (key === 'on_it' ? DONE.has(s.status) : key === 'failed' ? FAILED.has(s.status) : key === 'in_progress' ? !DONE.has(s.status) && !FAILED.has(s.status) : false));
  const buckets = (Object.keys(counts) as BucketKey[]).map((key) => ({ key, label: BUCKET_LABELS[key], count: counts[key], percent: percentOf(counts[key], total), statuses: of(key) }));
  return { total, buckets };
}

/**
 * The `status` filter of `GET /releases/{prn}/reports` for a bucket, from the statuses the
 * server counts (the keys of `reported`): a server that knows more statuses gets them asked for.
 */
export function statusFilterOf(bucket: BucketKey | 'all', known: readonly string[], soak = false): string {
  if (bucket === 'all') return '';
  const DONE = doneOf(soak);
  const keep = known.filter((s) => (bucket === 'on_it' ? DONE.has(s) : bucket === 'failed' ? FAILED.has(s) : bucket === 'in_progress' ? !DONE.has(s) && !FAILED.has(s) : false));
  return keep.join(',');
}
