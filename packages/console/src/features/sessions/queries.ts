/** The caller's own sessions through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type UserSession = ListItem<'/users/me/sessions'>;

export const sessionKeys = { mine: ['sessions'] as const };

export const mySessionsQuery = (client: CanopyClient) =>
  queryOptions({ queryKey: sessionKeys.mine, queryFn: () => listEvery(client, '/users/me/sessions', 'sessions', { order: 'desc' }) });

export function useMySessions() {
  const { client } = useSession();
  return useQuery(mySessionsQuery(client));
}
