/** Artifacts, their versions and the versions' binaries, through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type Artifact = ListItem<'/artifacts'>;
export type ArtifactVersion = ListItem<'/artifact_versions'>;
export type Binary = ListItem<'/binaries'>;

export const artifactKeys = {
  list: ['artifacts'] as const,
  one: (prn: string) => ['artifact', prn] as const,
  versionsOf: (artifactPrn: string) => ['artifact-versions', artifactPrn] as const,
  allVersions: ['artifact-versions', 'all'] as const,
  version: (prn: string) => ['artifact_version', prn] as const,
  binariesOf: (artifactVersionPrn: string) => ['binaries', artifactVersionPrn] as const,
};

const quoted = (prn: string) => `'${prn}'`;

export const artifactsQuery = (client: CanopyClient) => queryOptions({ queryKey: artifactKeys.list, queryFn: () => listEvery(client, '/artifacts', 'artifacts', { order: 'asc' }) });

export const artifactQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: artifactKeys.one(prn), queryFn: () => answerOf(client.api.GET('/artifacts/{prn}', { params: { path: { prn } } })).then((b) => b.artifact) });

export const artifactVersionsQuery = (client: CanopyClient, artifactPrn: string) =>
  queryOptions({ queryKey: artifactKeys.versionsOf(artifactPrn), queryFn: () => listEvery(client, '/artifact_versions', 'artifact_versions', { order: 'asc', artifact_prn: artifactPrn }) });

/** Every artifact version (for picking a bundle's contents). */
export const allArtifactVersionsQuery = (client: CanopyClient) =>
  queryOptions({ queryKey: artifactKeys.allVersions, queryFn: () => listEvery(client, '/artifact_versions', 'artifact_versions', { order: 'asc' }) });

export const artifactVersionQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: artifactKeys.version(prn), queryFn: () => answerOf(client.api.GET('/artifact_versions/{prn}', { params: { path: { prn } } })).then((b) => b.artifact_version) });

export const binariesOfQuery = (client: CanopyClient, artifactVersionPrn: string) =>
  queryOptions({
    queryKey: artifactKeys.binariesOf(artifactVersionPrn),
    queryFn: () => listEvery(client, '/binaries', 'binaries', { order: 'asc', search: `artifact_version_prn:${quoted(artifactVersionPrn)}` }),
  });

export function useArtifacts() {
  const { client } = useSession();
  return useQuery(artifactsQuery(client));
}

export function useArtifact(prn: string) {
  const { client } = useSession();
  return useQuery(artifactQuery(client, prn));
}

export function useArtifactVersions(artifactPrn: string) {
  const { client } = useSession();
  return useQuery(artifactVersionsQuery(client, artifactPrn));
}

export function useAllArtifactVersions() {
  const { client } = useSession();
  return useQuery(allArtifactVersionsQuery(client));
}

export function useArtifactVersion(prn: string) {
  const { client } = useSession();
  return useQuery(artifactVersionQuery(client, prn));
}

export function useBinariesOf(artifactVersionPrn: string) {
  const { client } = useSession();
  return useQuery(binariesOfQuery(client, artifactVersionPrn));
}
