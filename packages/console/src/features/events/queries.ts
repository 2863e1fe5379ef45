/** The event log's pages, through the SDK's typed client. */
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { listPage } from '../../api/lists';
import type { ListItem, QueryOf } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type LoggedEvent = ListItem<'/events'>;
/** The filters of GET /events the console offers, as the URL holds them (any text). */
export interface EventSearch {
  type?: string;
  subtype?: string;
  resource_prn?: string;
}

export const eventKeys = { page: (filters: EventSearch, limit: number) => ['events', filters, limit] as const };

// The URL's text is sent as typed: the server's refusal of an unknown type names the field.
export const eventsQuery = (client: CanopyClient, filters: EventSearch, limit: number) =>
  infiniteQueryOptions({
    queryKey: eventKeys.page(filters, limit),
    queryFn: ({ pageParam }) => listPage(client, '/events', 'events', { ...(filters as Pick<QueryOf<'/events'>, keyof EventSearch>), limit, ...(pageParam ? { page: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_page ?? undefined,
  });

/** Newest first, `limit` a page; older pages on demand. */
export function useEvents(filters: EventSearch, limit: number) {
  const { client } = useSession();
  return useInfiniteQuery(eventsQuery(client, filters, limit));
}
