/** Signing keys through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { BodyOf, ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type SigningKey = ListItem<'/signing_keys'>;

export const signingKeyKeys = { list: ['signing-keys'] as const };

export const signingKeysQuery = (client: CanopyClient) => queryOptions({ queryKey: signingKeyKeys.list, queryFn: () => listEvery(client, '/signing_keys', 'signing_keys', { order: 'asc' }) });

export function useSigningKeys() {
  const { client } = useSession();
  return useQuery(signingKeysQuery(client));
}

export const createSigningKey = (client: CanopyClient, body: BodyOf<'/signing_keys', 'post'>) => answerOf(client.api.POST('/signing_keys', { body }));
