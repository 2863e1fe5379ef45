/**
 * A cohort's releases in chain order, oldest first: each release names its previous and next
 * (packages/server/src/releases), so the chain is walked from the one with no previous. Releases
 * the walk does not reach (a page that missed one) are appended, never dropped.
 */
import type { Release } from './queries';

export function chainOrder(releases: readonly Release[]): Release[] {
  const byPrn = new Map(releases.map((r) => [r.prn, r]));
  const first = releases.find((r) => !r.previous_release_prn || !byPrn.has(r.previous_release_prn));
  const ordered: Release[] = [];
  const seen = new Set<string>();
  for (let at = first; at && !seen.has(at.prn); at = at.next_release_prn ? byPrn.get(at.next_release_prn) : undefined) {
    ordered.push(at);
    seen.add(at.prn);
  }
  for (const r of releases) if (!seen.has(r.prn)) ordered.push(r);
  return ordered;
}

/** The phase as people say it: "25% of the cohort", "10 devices", "devices tagged beta", "everyone". */
export function describePhase(release: Pick<Release, 'phase_mode' | 'phase_tags' | 'phase_value'>): string {
  if (release.phase_mode === 'tags') return `devices tagged ${(release.phase_tags ?? []).join(' or ') || '(no tags)'}`;
  const value = release.phase_value;
  if (value === null || value === 1) return 'everyone';
  if (value < 1) return `${Math.round(value * 1000) / 10}% of the cohort`;
  return `${value} devices`;
}
