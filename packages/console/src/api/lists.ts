/** List calls through the SDK, answered as { items, next_page }. */
import type { CanopyClient, Query } from '@canopy/sdk/browser';
import type { ListOf } from './types';

export async function listPage<T>(client: CanopyClient, path: string, key: string, query: Query = {}): Promise<ListOf<T>> {
  const body = await client.request<Record<string, unknown>>('GET', path, { query });
  return { items: (body[key] as T[]) ?? [], next_page: (body.next_page as string | null) ?? null };
}

/** Every item of a (short) list: products, cohorts, releases of one cohort. Stops at 20 pages. */
export async function listEvery<T>(client: CanopyClient, path: string, key: string, query: Query = {}): Promise<T[]> {
  const items: T[] = [];
  let page: string | null = null;
  for (let i = 0; i < 20; i++) {
    const next: ListOf<T> = await listPage<T>(client, path, key, { ...query, limit: 100, ...(page ? { page } : {}) });
    items.push(...next.items);
    page = next.next_page;
    if (!page) break;
  }
  return items;
}
