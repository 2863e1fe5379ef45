/**
 * Walks a list endpoint page by page through its `next_page` cursor and yields the items.
 * The item key is the plural resource name (`products`); it is found as the one array in the
 * page when not given, so new resources need no change here.
 */
import type { CanopyClient, Query } from './client-core';

export interface PaginateOptions {
  query?: Query;
  /** The list key in the page body, e.g. `artifacts`. */
  itemsKey?: string;
  signal?: AbortSignal;
}

export type ListPage<T> = { next_page: string | null } & Record<string, T[] | string | null>;

export function itemsOf<T>(page: Record<string, unknown>, itemsKey?: string): T[] {
  if (itemsKey) return (page[itemsKey] as T[]) ?? [];
  const arrays = Object.entries(page).filter(([, value]) => Array.isArray(value));
  if (arrays.length !== 1) throw new Error(`cannot tell the items of a page with keys ${Object.keys(page).join(', ')}`);
  return arrays[0][1] as T[];
}

export async function* paginate<T = Record<string, unknown>>(client: CanopyClient, path: string, options: PaginateOptions = {}): AsyncGenerator<T> {
  let page: string | undefined = (options.query?.page as string | undefined) ?? undefined;
  for (;;) {
    const body = await client.request<Record<string, unknown>>('GET', path, { query: { ...options.query, page }, signal: options.signal });
    for (const item of itemsOf<T>(body, options.itemsKey)) yield item;
    const next = body.next_page;
    if (typeof next !== 'string' || next === '') return;
    page = next;
  }
}

/** Collects every item of a list endpoint. */
export async function listAll<T = Record<string, unknown>>(client: CanopyClient, path: string, options: PaginateOptions = {}): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate<T>(client, path, options)) items.push(item);
  return items;
}
