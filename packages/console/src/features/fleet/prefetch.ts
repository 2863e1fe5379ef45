/**
 * The fleet route's loader: starts the fleet view's requests (its page of devices, the counts of
 * the devices its search selects, and the products and cohorts its columns name) as soon as the
 * URL is matched, alongside the download of the screen's code rather than after it, and lets the
 * router draw the screen once, with its rows and counts, instead of a frame, then skeletons, then
 * rows. The router waits for a loader at most its pendingMs (1 s) before drawing the route's
 * pending component; errors are left in the cache for the screen to show (prefetchQuery never
 * throws).
 */
import type { QueryClient } from '@tanstack/react-query';
import { clientFor } from '../../api/client';
import { loadSession } from '../../api/session';
import { cohortsQuery, productsQuery } from '../products/queries';
import { deviceCountsQuery, devicePageQuery } from './queries';

export async function prefetchFleet(queries: QueryClient, search: { q?: string; page?: string }): Promise<void> {
  const session = loadSession();
  if (!session) return; // the sign-in page is drawn instead
  const client = clientFor(session.apiKey);
  const q = search.q ?? '';
  await Promise.all([
    queries.prefetchQuery(devicePageQuery(client, q, search.page)),
    queries.prefetchQuery(deviceCountsQuery(client, q)),
    queries.prefetchQuery(productsQuery(client)),
    queries.prefetchQuery(cohortsQuery(client)),
  ]);
}
