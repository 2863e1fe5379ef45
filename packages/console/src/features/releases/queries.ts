import { useQuery } from '@tanstack/react-query';
import { listEvery } from '../../api/lists';
import { useSession } from '../../api/session-context';
import type { Release } from '../../api/types';

export function useCohortReleases(cohortPrn: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['releases', cohortPrn],
    queryFn: () => listEvery<Release>(client, '/releases', 'releases', { search: `cohort_prn:'${cohortPrn}'`, order: 'asc' }),
    enabled: cohortPrn !== '',
  });
}

/** Releases of every cohort, newest first. */
export function useAllReleases() {
  const { client } = useSession();
  return useQuery({ queryKey: ['releases', 'all'], queryFn: () => listEvery<Release>(client, '/releases', 'releases', { order: 'desc' }) });
}
