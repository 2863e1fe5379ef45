/** Reads a cohort's chain through the admin API and checks its invariants (tests). */
import { expect } from 'vitest';
import type { Api } from './server';

/** Every release of the cohort, then: one first, one latest, each link mutual, one path covering all. */
export async function expectValidChain(api: Api, cohortPrn: string): Promise<string[]> {
  const releases: any[] = [];
  let page: string | null = null;
  do {
    const res: { status: number; body: any } = await api('GET', `/releases?limit=100&search=${encodeURIComponent(`cohort_prn:'${cohortPrn}'`)}${page ? `&page=${encodeURIComponent(page)}` : ''}`);
    expect(res.status).toBe(200);
    releases.push(...res.body.releases);
    page = res.body.next_page;
  } while (page);
  if (releases.length === 0) return [];
  const byPrn = new Map(releases.map((r) => [r.prn, r]));
  const firsts = releases.filter((r) => r.previous_release_prn === null);
  const latests = releases.filter((r) => r.next_release_prn === null);
  expect(firsts).toHaveLength(1);
  expect(latests).toHaveLength(1);
  const order: string[] = [];
  for (let r = firsts[0]; r; r = r.next_release_prn ? byPrn.get(r.next_release_prn) : undefined) {
    expect(order).not.toContain(r.prn);
    if (r.next_release_prn) expect(byPrn.get(r.next_release_prn)?.previous_release_prn).toBe(r.prn);
    order.push(r.prn);
  }
  expect(order).toHaveLength(releases.length);
  return order;
}
