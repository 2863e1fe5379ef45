/** One binary, its parts and its signatures, through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { webCryptoHasEd25519, type CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { BodyOf, ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';
import type { Binary } from '../artifacts/queries';
import { isMoving } from './BinaryStates';

export type BinaryPart = ListItem<'/binaries/{prn}/parts'>;
export type BinarySignature = ListItem<'/binary_signatures'>;

export const binaryKeys = {
  one: (prn: string) => ['binary', prn] as const,
  /** Every parts list of a binary (one per state it was read in). */
  parts: (prn: string) => ['binary-parts', prn] as const,
  partsIn: (prn: string, state: string) => ['binary-parts', prn, state] as const,
  signatures: (prn: string) => ['binary-signatures', prn] as const,
  deltas: (prn: string) => ['binary-deltas', prn] as const,
  webCryptoEd25519: ['webcrypto-ed25519'] as const,
};

/** One binary, read again every second while the server is verifying it. */
export const binaryQuery = (client: CanopyClient, prn: string) =>
  queryOptions({
    queryKey: binaryKeys.one(prn),
    queryFn: () => answerOf(client.api.GET('/binaries/{prn}', { params: { path: { prn } } })).then((b) => b.binary),
    refetchInterval: (query) => (isMoving(query.state.data?.state) ? 1000 : false),
  });

/** The parts, read again when the binary's state changes. */
export const partsQuery = (client: CanopyClient, prn: string, state: string) =>
  queryOptions({ queryKey: binaryKeys.partsIn(prn, state), queryFn: () => listEvery(client, '/binaries/{prn}/parts', 'binary_parts', undefined, { prn }) });

export const signaturesQuery = (client: CanopyClient, binaryPrn: string) =>
  queryOptions({ queryKey: binaryKeys.signatures(binaryPrn), queryFn: () => listEvery(client, '/binary_signatures', 'binary_signatures', { search: `binary_prn:'${binaryPrn}'` }) });

/** The binary's deltas from earlier binaries, read again while one is being made. */
export const deltasQuery = (client: CanopyClient, prn: string) =>
  queryOptions({
    queryKey: binaryKeys.deltas(prn),
    queryFn: () => answerOf(client.api.GET('/binaries/{prn}/deltas', { params: { path: { prn } } })).then((answer) => answer.binary_deltas),
    refetchInterval: (query) => (query.state.data?.some((d) => d.state === 'pending') ? 2000 : false),
  });

/** Whether this browser signs Ed25519 with WebCrypto (asked once). */
export const useWebCryptoEd25519 = () => useQuery({ queryKey: binaryKeys.webCryptoEd25519, queryFn: () => webCryptoHasEd25519(), staleTime: Infinity });

export function useBinary(prn: string) {
  const { client } = useSession();
  return useQuery(binaryQuery(client, prn));
}

export function useParts(prn: string, state: string) {
  const { client } = useSession();
  return useQuery(partsQuery(client, prn, state));
}

export function useSignatures(binary: Binary) {
  const { client } = useSession();
  return useQuery(signaturesQuery(client, binary.prn));
}

export const patchBinary = (client: CanopyClient, prn: string, body: BodyOf<'/binaries/{prn}', 'patch'>) => answerOf(client.api.PATCH('/binaries/{prn}', { params: { path: { prn } }, body }));
export const addSignature = (client: CanopyClient, body: BodyOf<'/binary_signatures', 'post'>) => answerOf(client.api.POST('/binary_signatures', { body }));
