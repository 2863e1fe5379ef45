/** Bundles, and every artifact version named by its artifact (what a bundle is made of). */
import { useQuery } from '@tanstack/react-query';
import { listEvery } from '../../api/lists';
import { useSession } from '../../api/session-context';
import type { Bundle } from '../../api/types';
import { useArtifacts, type ArtifactVersion } from '../artifacts/queries';

export function useBundles() {
  const { client } = useSession();
  return useQuery({ queryKey: ['bundles'], queryFn: () => listEvery<Bundle>(client, '/bundles', 'bundles', { order: 'asc' }) });
}

/** A bundle as people name it: its name, or the start of its prn when it has none. */
export const bundleLabel = (bundle: Bundle) => bundle.name ?? bundle.prn.slice(-12);

/** Every artifact version, labelled "artifact version" (for picking a bundle's contents). */
export function useVersionLabels() {
  const { client } = useSession();
  const artifacts = useArtifacts();
  const versions = useQuery({ queryKey: ['artifact-versions', 'all'], queryFn: () => listEvery<ArtifactVersion>(client, '/artifact_versions', 'artifact_versions', { order: 'asc' }) });
  const names = new Map((artifacts.data ?? []).map((a) => [a.prn, a.name]));
  return new Map((versions.data ?? []).map((v) => [v.prn, `${names.get(v.artifact_prn) ?? 'artifact'} ${v.version}`]));
}
