/**
 * List calls through the SDK's typed client, answered as { items, next_page }. The path, its
 * query and path parameters and the item type all come from the generated OpenAPI types.
 */
import type { CanopyClient } from '@canopy/sdk/browser';
import type { ItemsKey, ListItem, ListPath, PathParamsOf, QueryOf } from './paths';

export type ListOf<T> = { items: T[]; next_page: string | null };

export async function listPage<P extends ListPath, K extends ItemsKey<P>>(client: CanopyClient, path: P, key: K, query?: QueryOf<P>, pathParams?: PathParamsOf<P>): Promise<ListOf<ListItem<P, K>>> {
  // One call for every list path: openapi-fetch cannot check a path chosen by a type parameter,
  // so the typing is this function's signature (the generated path, query and item types).
  const { data } = await client.api.GET(path as never, { params: { query, path: pathParams } } as never);
  const body = (data ?? {}) as Record<string, unknown>;
  return { items: (body[key as string] as ListItem<P, K>[]) ?? [], next_page: (body.next_page as string | null) ?? null };
}

/** Every item of a (short) list: products, cohorts, releases of one cohort. Stops at 20 pages. */
export async function listEvery<P extends ListPath, K extends ItemsKey<P>>(client: CanopyClient, path: P, key: K, query?: QueryOf<P>, pathParams?: PathParamsOf<P>): Promise<ListItem<P, K>[]> {
  const items: ListItem<P, K>[] = [];
  let page: string | null = null;
  for (let i = 0; i < 20; i++) {
    const next: ListOf<ListItem<P, K>> = await listPage(client, path, key, { ...(query as object), limit: 100, ...(page ? { page } : {}) } as unknown as QueryOf<P>, pathParams);
    items.push(...next.items);
    page = next.next_page;
    if (!page) break;
  }
  return items;
}

/** The answer of a typed call. The SDK's middleware has already thrown on a refusal, so there is one. */
export async function answerOf<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}
