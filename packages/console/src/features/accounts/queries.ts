/** Users and API keys through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { BodyOf, ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type User = ListItem<'/users'>;
export type ApiKey = ListItem<'/api_keys'>;

export const accountKeys = {
  users: ['users'] as const,
  apiKeys: ['api-keys'] as const,
};

export const usersQuery = (client: CanopyClient) => queryOptions({ queryKey: accountKeys.users, queryFn: () => listEvery(client, '/users', 'users', { order: 'asc' }) });
export const apiKeysQuery = (client: CanopyClient) => queryOptions({ queryKey: accountKeys.apiKeys, queryFn: () => listEvery(client, '/api_keys', 'api_keys', { order: 'asc' }) });

export function useUsers() {
  const { client } = useSession();
  return useQuery(usersQuery(client));
}

export function useApiKeys() {
  const { client } = useSession();
  return useQuery(apiKeysQuery(client));
}

export const createUser = (client: CanopyClient, body: BodyOf<'/users', 'post'>) => answerOf(client.api.POST('/users', { body }));
