/** Releases through the SDK's typed client: the query keys and options, and the writes. */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQueries, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery, listPage } from '../../api/lists';
import type { AnswerOf, BodyOf, ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type Release = ListItem<'/releases'>;
export type Rollout = AnswerOf<'/releases/{prn}/rollout'>['rollout'];
export type DryRun = AnswerOf<'/releases/dry_run', 'post'>['dry_run'];
export type Cohort = AnswerOf<'/cohorts/{prn}'>['cohort'];

export const releaseKeys = {
  /** Every release list (a cohort's, and all of them). */
  lists: ['releases'] as const,
  ofCohort: (cohortPrn: string) => ['releases', cohortPrn] as const,
  all: ['releases', 'all'] as const,
  /** Every rollout progress. */
  rollouts: ['rollout'] as const,
  rollout: (releasePrn: string) => ['rollout', releasePrn] as const,
  cohort: (prn: string) => ['cohort', prn] as const,
  one: (prn: string) => ['releases', 'one', prn] as const,
  /** The devices' latest reports of a release (`status`: comma-separated, '' for all). */
  reports: (prn: string, status: string) => ['rollout', prn, 'reports', status] as const,
};

export const cohortReleasesQuery = (client: CanopyClient, cohortPrn: string) =>
  queryOptions({
    queryKey: releaseKeys.ofCohort(cohortPrn),
    queryFn: () => listEvery(client, '/releases', 'releases', { search: `cohort_prn:'${cohortPrn}'`, order: 'asc' }),
    enabled: cohortPrn !== '',
  });

/** Releases of every cohort, newest first. */
export const allReleasesQuery = (client: CanopyClient) => queryOptions({ queryKey: releaseKeys.all, queryFn: () => listEvery(client, '/releases', 'releases', { order: 'desc' }) });

/** Rollout progress of one release, refreshed every 5 s. */
export const rolloutQuery = (client: CanopyClient, releasePrn: string) =>
  queryOptions({
    queryKey: releaseKeys.rollout(releasePrn),
    queryFn: () => answerOf(client.api.GET('/releases/{prn}/rollout', { params: { path: { prn: releasePrn } } })).then((b) => b.rollout),
    refetchInterval: 5_000,
    // A live count: a screen opened on it asks again rather than show the last screen's numbers.
    staleTime: 0,
  });

export const cohortQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: releaseKeys.cohort(prn), queryFn: () => answerOf(client.api.GET('/cohorts/{prn}', { params: { path: { prn } } })).then((b) => b.cohort) });

export function useCohortReleases(cohortPrn: string) {
  const { client } = useSession();
  return useQuery(cohortReleasesQuery(client, cohortPrn));
}

export function useAllReleases() {
  const { client } = useSession();
  return useQuery(allReleasesQuery(client));
}

export function useRollouts(releases: readonly Release[]) {
  const { client } = useSession();
  return useQueries({ queries: releases.map((release) => rolloutQuery(client, release.prn)) });
}

export function useCohort(prn: string) {
  const { client } = useSession();
  return useQuery(cohortQuery(client, prn));
}

export const patchRelease = (client: CanopyClient, prn: string, body: BodyOf<'/releases/{prn}', 'patch'>) => answerOf(client.api.PATCH('/releases/{prn}', { params: { path: { prn } }, body }));
export type NewRelease = BodyOf<'/releases', 'post'>;
export const createRelease = (client: CanopyClient, body: NewRelease) => answerOf(client.api.POST('/releases', { body }));
export const dryRunRelease = (client: CanopyClient, body: BodyOf<'/releases/dry_run', 'post'>) => answerOf(client.api.POST('/releases/dry_run', { body })).then((b) => b.dry_run);

export type ReleaseReport = ListItem<'/releases/{prn}/reports'>;

export const releaseQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: releaseKeys.one(prn), queryFn: () => answerOf(client.api.GET('/releases/{prn}', { params: { path: { prn } } })).then((b) => b.release), refetchInterval: 5_000, staleTime: 0 });

export function useRelease(prn: string) {
  const { client } = useSession();
  return useQuery(releaseQuery(client, prn));
}

export function useRollout(prn: string) {
  const { client } = useSession();
  return useQuery(rolloutQuery(client, prn));
}

/** The devices' latest reports for a release, 50 a page, refreshed with the progress. */
export const releaseReportsQuery = (client: CanopyClient, prn: string, status: string) =>
  infiniteQueryOptions({
    queryKey: releaseKeys.reports(prn, status),
    queryFn: ({ pageParam }) => listPage(client, '/releases/{prn}/reports', 'reports', { limit: 50, ...(status ? { status } : {}), ...(pageParam ? { page: pageParam } : {}) }, { prn }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_page ?? undefined,
    refetchInterval: 5_000,
    staleTime: 0,
  });

export function useReleaseReports(prn: string, status: string) {
  const { client } = useSession();
  return useInfiniteQuery(releaseReportsQuery(client, prn, status));
}

export const revertRelease = (client: CanopyClient, prn: string, body: BodyOf<'/releases/{prn}/revert', 'post'>) =>
  answerOf(client.api.POST('/releases/{prn}/revert', { params: { path: { prn } }, body })).then((b) => b.release);
