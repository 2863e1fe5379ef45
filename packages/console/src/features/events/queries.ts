/** The event log's first page, through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
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

export const eventKeys = { page: (filters: EventSearch) => ['events', filters] as const };

// The URL's text is sent as typed: the server's refusal of an unknown type names the field.
export const eventsQuery = (client: CanopyClient, filters: EventSearch, limit: number) =>
  queryOptions({ queryKey: eventKeys.page(filters), queryFn: () => listPage(client, '/events', 'events', { ...(filters as Pick<QueryOf<'/events'>, keyof EventSearch>), limit }) });

export function useEvents(filters: EventSearch, limit: number) {
  const { client } = useSession();
  return useQuery(eventsQuery(client, filters, limit));
}
