/**
 * Which offers the device declines for now, after one of them failed or rolled back. Pure: the
 * record is part of the persisted state (state.ts `held_back`), so a restart keeps the rule.
 *
 * The rule (the docs' "Failures and retries", site/docs/canopy-core/tools/canopy-daemon/overview.md):
 * - An offer is the pair (release, bundle). A different pair is a new offer: it is taken at once
 *   and the record of the old one is forgotten.
 * - `rolled_back`: the new software ran on this device and failed its health check (or never
 *   booted). Installing it again would repeat the same reboot and the same fallback, so the
 *   device declines the same offer for as long as the server makes it; a new release (or a new
 *   bundle) is tried.
 * - `failed` (a download, a size, hash or signature check, the metadata, the installer): nothing
 *   of it was installed, and the cause may pass (a network, a full disk, a binary re-uploaded
 *   behind a proxy that corrupted it). The same offer is tried again after a delay that doubles
 *   with each consecutive failure: one poll interval after the first, then 2, 4, ... up to 64
 *   poll intervals, and never more than a day. Polls go on meanwhile, so a new offer is seen at
 *   the usual pace.
 */

export interface Offer {
  release_prn: string | null;
  bundle_prn: string;
}

export interface HeldBack extends Offer {
  outcome: 'failed' | 'rolled_back';
  /** Consecutive failed attempts at this offer (1 after the first). */
  failures: number;
  /** When the last attempt ended (RFC 3339). */
  at: string;
}

const MAX_DOUBLINGS = 6;
const MAX_DELAY_MS = 86_400_000;

export const sameOffer = (a: Offer, b: Offer) => a.release_prn === b.release_prn && a.bundle_prn === b.bundle_prn;

/** The record after an attempt at `offer` ended with `outcome` at `at`. */
export function heldBackAfter(previous: HeldBack | null | undefined, offer: Offer, outcome: HeldBack['outcome'], at: string): HeldBack {
  const failures = previous && sameOffer(previous, offer) ? previous.failures + 1 : 1;
  return { release_prn: offer.release_prn, bundle_prn: offer.bundle_prn, outcome, failures, at };
}

/** Milliseconds to wait after `failures` consecutive failures, for a device polling every `pollSeconds`. */
export function retryDelayMs(failures: number, pollSeconds: number): number {
  const doublings = Math.min(Math.max(failures - 1, 0), MAX_DOUBLINGS);
  return Math.min(pollSeconds * 1000 * 2 ** doublings, MAX_DELAY_MS);
}

/**
 * Whether `offer` is declined now: null when it may be installed, otherwise when it may be tried
 * again (null `until` for a rollback: not while the server offers the same).
 */
export function holdBackOf(held: HeldBack | null | undefined, offer: Offer, now: Date, pollSeconds: number): { until: Date | null } | null {
  if (!held || !sameOffer(held, offer)) return null;
  if (held.outcome === 'rolled_back') return { until: null };
  const until = new Date(Date.parse(held.at) + retryDelayMs(held.failures, pollSeconds));
  return now < until ? { until } : null;
}
