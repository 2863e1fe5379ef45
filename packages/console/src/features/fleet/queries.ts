import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { useSession } from '../../api/session-context';
import { listPage } from '../../api/lists';
import type { Device } from '../../api/types';

export const FLEET_PAGE_SIZE = 100;

/** One server-side page of the devices list (cursor pages; the cursor lives in the URL). */
export const devicePageQuery = (client: CanopyClient, search: string, page: string | undefined) =>
  queryOptions({
    queryKey: ['devices', 'page', search, page ?? null],
    queryFn: () => listPage<Device>(client, '/devices', 'devices', { limit: FLEET_PAGE_SIZE, order: 'desc', ...(search ? { search } : {}), ...(page ? { page } : {}) }),
    // A search the server refuses is the user's to fix, not worth asking again.
    retry: false,
  });

export function useDevicePage(search: string, page: string | undefined) {
  const { client } = useSession();
  return useQuery({ ...devicePageQuery(client, search, page), placeholderData: keepPreviousData });
}
