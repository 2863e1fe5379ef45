/**
 * Checks every admin resource's API tests make the same way: the 422 shape, a walk through a
 * paginated list, and the read role's limits. Each takes the response or the client it needs.
 */
import { expect } from 'vitest';
import type { Api, ApiResponse, TestServer } from './server';

/** A 422 whose only (or first) entry names `field` with `reason`. */
export function expectFieldError(res: ApiResponse, field: string, reason: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.errors[0]).toMatchObject({ code: 'validation', context: { field, reason } });
}

/**
 * Follows `next_page` from `path` (which must carry its own query, e.g. `?limit=2&order=asc`)
 * to the end and answers the prns in the order they came; the last page's next_page is null.
 */
export async function walkPages(api: Api, path: string, key: string): Promise<string[]> {
  const prns: string[] = [];
  let url = path;
  for (let pages = 0; pages < 100; pages++) {
    const res = await api('GET', url);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    prns.push(...res.body[key].map((item: { prn: string }) => item.prn));
    if (res.body.next_page === null) return prns;
    url = `${path}&page=${encodeURIComponent(res.body.next_page)}`;
  }
  throw new Error('next_page never became null');
}

/**
 * Walks `listPath` (filtered to exactly `created`, in creation order) two at a time in both
 * orders: every item once, in inserted_at order, and limit respected.
 */
export async function expectPaginated(api: Api, listPath: string, key: string, created: string[]): Promise<void> {
  const sep = listPath.includes('?') ? '&' : '?';
  expect(await walkPages(api, `${listPath}${sep}limit=2&order=asc`, key)).toEqual(created);
  expect(await walkPages(api, `${listPath}${sep}limit=2&order=desc`, key)).toEqual([...created].reverse());
  const first = await api('GET', `${listPath}${sep}limit=1`);
  expect(first.body[key]).toHaveLength(1);
  expect(first.body.next_page).toEqual(expect.any(String));
}

/** A read key may list but not create: 403 `unauthorized`, and nothing is written. */
export async function expectReadOnlyForReadKey(t: TestServer, listPath: string, key: string, body: unknown): Promise<void> {
  const readKey = await t.keyWithRole('read');
  const before = (await t.api('GET', `${listPath}?limit=100`)).body[key].length;
  expect((await t.api('GET', listPath, undefined, { key: readKey })).status).toBe(200);
  const refused = await t.api('POST', listPath, body, { key: readKey });
  expect(refused.status).toBe(403);
  expect(refused.body.errors[0].code).toBe('unauthorized');
  expect((await t.api('GET', `${listPath}?limit=100`)).body[key]).toHaveLength(before);
  const writeKey = await t.keyWithRole('write');
  expect((await t.api('POST', listPath, body, { key: writeKey })).status).toBe(201);
}

/** The same prn with another type word: must be a 404 like any unknown prn. */
export function withType(prn: string, type: string): string {
  return prn.replace(/:[a-z_]+:([0-9a-f-]{36})$/, `:${type}:$1`);
}
