/** Artifacts, their versions and the versions' binaries, read through the SDK. */
import { useQuery } from '@tanstack/react-query';
import type { Binary } from '@canopy/sdk/browser';
import { listEvery } from '../../api/lists';
import { useSession } from '../../api/session-context';

export interface Artifact {
  prn: string;
  name: string;
  description: string | null;
  inserted_at: string;
}

export interface ArtifactVersion {
  prn: string;
  artifact_prn: string;
  version: string;
  description: string | null;
  inserted_at: string;
}

export type { Binary };

const quoted = (prn: string) => `'${prn}'`;

export function useArtifacts() {
  const { client } = useSession();
  return useQuery({ queryKey: ['artifacts'], queryFn: () => listEvery<Artifact>(client, '/artifacts', 'artifacts', { order: 'asc' }) });
}

export function useOne<T>(collection: string, key: string, prn: string, refetchInterval?: (data: T | undefined) => number | false) {
  const { client } = useSession();
  return useQuery({
    queryKey: [key, prn],
    queryFn: () => client.request<Record<string, T>>('GET', `/${collection}/${encodeURIComponent(prn)}`).then((body) => body[key]),
    refetchInterval: refetchInterval ? (query) => refetchInterval(query.state.data) : undefined,
  });
}

export function useArtifactVersions(artifactPrn: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['artifact-versions', artifactPrn],
    queryFn: () => listEvery<ArtifactVersion>(client, '/artifact_versions', 'artifact_versions', { order: 'asc', artifact_prn: artifactPrn }),
  });
}

export function useBinariesOf(artifactVersionPrn: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['binaries', artifactVersionPrn],
    queryFn: () => listEvery<Binary>(client, '/binaries', 'binaries', { order: 'asc', search: `artifact_version_prn:${quoted(artifactVersionPrn)}` }),
  });
}
