import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSession } from '../../api/session-context';
import { listPage } from '../../api/lists';
import type { Device } from '../../api/types';

export const FLEET_PAGE_SIZE = 100;

/** One server-side page of the devices list (cursor pages; the cursor lives in the URL). */
export function useDevicePage(search: string, page: string | undefined) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['devices', 'page', search, page ?? null],
    queryFn: () => listPage<Device>(client, '/devices', 'devices', { limit: FLEET_PAGE_SIZE, order: 'desc', ...(search ? { search } : {}), ...(page ? { page } : {}) }),
    placeholderData: keepPreviousData,
    retry: false,
  });
}
