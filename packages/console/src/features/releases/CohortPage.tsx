/** One cohort: halted releases with Resume, its release chain, phasing edited in place, and the guided form to add a release. */
import { Stack, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { RolloutProgress } from './RolloutProgress';
import { EmptyState, LoadingRows } from '../../ui/States';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { patchRelease, releaseKeys, useCohort, useCohortReleases, type Release } from './queries';
import { HaltedBanner } from './HaltedBanner';
import { ReleaseChain } from './ReleaseChain';
import { ReleaseForm } from './ReleaseForm';

export function CohortPage({ prn }: { prn: string }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const cohort = useCohort(prn);
  const releases = useCohortReleases(prn);
  const phase = useMutation({
    mutationFn: ({ release, value }: { release: Release; value: number }) => patchRelease(client, release.prn, { phase_value: value }),
    onSuccess: () => {
      notifySuccess('Phase saved');
      void queries.invalidateQueries({ queryKey: releaseKeys.ofCohort(prn) });
    },
    onError: notifyFailure,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Cohort {cohort.data?.name ?? ''}
      </Title>
      <ApiErrorAlert error={cohort.error ?? releases.error} />
      <HaltedBanner releases={releases.data ?? []} />
      <Title order={2} size="h3">
        Release chain
      </Title>
      {releases.isPending ? (
        <LoadingRows rows={2} />
      ) : releases.data?.length === 0 ? (
        <EmptyState title="No releases in this cohort">Add the first release below: pick a bundle, and devices of this cohort will be offered it.</EmptyState>
      ) : (
        <>
          <ReleaseChain releases={releases.data ?? []} editable={canWrite} saving={phase.isPending ? (phase.variables?.release.prn ?? null) : null} onSavePhase={(release, value) => phase.mutate({ release, value })} />
          <RolloutProgress releases={releases.data ?? []} />
        </>
      )}
      {canWrite && <ReleaseForm cohortPrn={prn} />}
    </Stack>
  );
}
