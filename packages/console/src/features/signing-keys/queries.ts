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

export type TrustPosture = Awaited<ReturnType<typeof fetchTrustPosture>>;
const fetchTrustPosture = (client: CanopyClient) => answerOf(client.api.GET('/tuf/posture')).then((answer) => answer.data);
export const trustPostureKeys = { posture: ['tuf-posture'] as const };
export const trustPostureQuery = (client: CanopyClient) => queryOptions({ queryKey: trustPostureKeys.posture, queryFn: () => fetchTrustPosture(client) });

export function useTrustPosture() {
  const { client } = useSession();
  return useQuery(trustPostureQuery(client));
}
