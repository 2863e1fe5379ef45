import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { useSession } from '../../api/session-context';
import { answerOf, listPage } from '../../api/lists';
import type { AnswerOf } from '../../api/paths';
import { deviceKeys } from '../devices/queries';

export const FLEET_PAGE_SIZE = 100;

/** One server-side page of the devices list (cursor pages; the cursor lives in the URL). */
export const devicePageQuery = (client: CanopyClient, search: string, page: string | undefined) =>
  queryOptions({
    queryKey: [...deviceKeys.lists, 'page', search, page ?? null],
    queryFn: () => listPage(client, '/devices', 'devices', { limit: FLEET_PAGE_SIZE, order: 'desc', ...(search ? { search } : {}), ...(page ? { page } : {}) }),
    // A search the server refuses is the user's to fix, not worth asking again.
    retry: false,
  });

/** GET /devices/counts's answer, as the server's OpenAPI document describes it. */
export type DeviceCounts = AnswerOf<'/devices/counts'>['device_counts'];

/** Counts by state of every device a search selects, not just one page (GET /devices/counts, one statement on the server). */
export const deviceCountsQuery = (client: CanopyClient, search: string) =>
  queryOptions({
    queryKey: [...deviceKeys.lists, 'counts', search],
    queryFn: () => answerOf(client.api.GET('/devices/counts', { params: { query: search ? { search } : {} } })).then((b) => b.device_counts),
    retry: false,
  });

export function useDevicePage(search: string, page: string | undefined) {
  const { client } = useSession();
  return useQuery({ ...devicePageQuery(client, search, page), placeholderData: keepPreviousData });
}
