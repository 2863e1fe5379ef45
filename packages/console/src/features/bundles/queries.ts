/** Bundles, and every artifact version named by its artifact (what a bundle is made of). */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';
import { useAllArtifactVersions, useArtifacts } from '../artifacts/queries';

export type Bundle = ListItem<'/bundles'>;

export const bundleKeys = { list: ['bundles'] as const };

export const bundlesQuery = (client: CanopyClient) => queryOptions({ queryKey: bundleKeys.list, queryFn: () => listEvery(client, '/bundles', 'bundles', { order: 'asc' }) });

export function useBundles() {
  const { client } = useSession();
  return useQuery(bundlesQuery(client));
}

/** A bundle as people name it: its name, or the start of its prn when it has none. */
export const bundleLabel = (bundle: Bundle) => bundle.name ?? bundle.prn.slice(-12);

/** Every artifact version, labelled "artifact version" (for picking a bundle's contents). */
export function useVersionLabels() {
  const artifacts = useArtifacts();
  const versions = useAllArtifactVersions();
  const names = new Map((artifacts.data ?? []).map((a) => [a.prn, a.name]));
  return new Map((versions.data ?? []).map((v) => [v.prn, `${names.get(v.artifact_prn) ?? 'artifact'} ${v.version}`]));
}
