/**
 * One release, for the operator running its rollout: what it is doing (release-state.ts), its
 * progress with shares, the devices in each state with their failure reasons, halt / resume /
 * revert, and its health gate.
 */
import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { ApiErrorAlert } from '../../ui/ApiError';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { bundleLabel, useBundles } from '../bundles/queries';
import { namesOf, useCohorts } from '../products/queries';
import { describePhase } from './chain-order';
import { gateBody, gateOf, HealthGateFields, type HealthGate } from './HealthGateFields';
import { patchRelease, releaseKeys, useRelease, useRollout, type Release } from './queries';
import { ReleaseActions } from './ReleaseActions';
import { RolloutControls } from './RolloutControls';
import { ReleaseDevices, type DeviceFilter } from './ReleaseDevices';
import { releaseState } from './release-state';
import { RolloutBreakdown } from './RolloutBreakdown';

export function ReleasePage({ prn }: { prn: string }) {
  const release = useRelease(prn);
  const rollout = useRollout(prn);
  const cohorts = useCohorts();
  const bundles = useBundles();
  const [filter, setFilter] = useState<DeviceFilter | null>(null);
  if (release.isPending) return <LoadingRows rows={6} label="Loading release" />;
  if (release.error) return <ApiErrorAlert error={release.error} title="Could not load the release" />;
  const r = release.data;
  const state = releaseState(r, rollout.data);
  const failed = (rollout.data?.reported.failed ?? 0) + (rollout.data?.reported.rolled_back ?? 0);
  const shown: DeviceFilter = filter ?? (failed > 0 ? 'failed' : 'all');
  const bundle = bundles.data?.find((b) => b.prn === r.bundle_prn);
  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1} size="h2">
            Release {r.name}
          </Title>
          <Text size="sm">
            Cohort{' '}
            <AnchorLink to="/cohorts/$prn" params={{ prn: r.cohort_prn }}>
              {namesOf(cohorts.data).get(r.cohort_prn) ?? 'its cohort'}
            </AnchorLink>{' '}
            · bundle {bundle ? bundleLabel(bundle) : '…'} · version {r.version ?? 'not set'} · phase {describePhase(r)} · created <Time value={r.inserted_at} relative />
          </Text>
        </Stack>
        <Badge size="lg" color={state.color} data-testid="release-state">
          {state.label}
        </Badge>
      </Group>
      <Text data-testid="release-state-sentence">{state.sentence}</Text>
      <ReleaseActions release={r} />
      <RolloutControls release={r} />
      <ApiErrorAlert error={rollout.error} title="Could not load the progress" />
      {rollout.data ? (
        <RolloutBreakdown
          rollout={rollout.data}
          onShow={(bucket) => {
            if (bucket === 'failed' || bucket === 'in_progress' || bucket === 'on_it') setFilter(bucket);
            document.getElementById('release-devices')?.scrollIntoView({ block: 'start' });
          }}
        />
      ) : (
        !rollout.error && <LoadingRows rows={3} label="Loading progress" />
      )}
      <ReleaseDevices releasePrn={prn} knownStatuses={Object.keys(rollout.data?.reported ?? {})} filter={shown} onFilter={setFilter} soak={Boolean(rollout.data?.soak_seconds)} />
      <HealthGatePanel release={r} />
    </Stack>
  );
}

function HealthGatePanel({ release }: { release: Release }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const [gate, setGate] = useState<HealthGate>(gateOf(release));
  useEffect(() => setGate(gateOf(release)), [release.halt_failure_ratio, release.halt_min_reports, release.soak_seconds]);
  const save = useMutation({
    mutationFn: () => patchRelease(client, release.prn, gateBody(gate)),
    onSuccess: () => {
      notifySuccess(`Health gate of ${release.name} saved`);
      void queries.invalidateQueries({ queryKey: releaseKeys.lists });
      void queries.invalidateQueries({ queryKey: releaseKeys.rollouts });
    },
    onError: notifyFailure,
  });
  return (
    <Paper withBorder p="md">
      <Stack gap="sm" component="form" aria-label="Health gate" onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
        <Title order={2} size="h4">
          Health gate
        </Title>
        <Text size="sm" c="dimmed">
          {release.halt_failure_ratio === null
            ? `Off: release ${release.name} keeps rolling whatever share of its installs fail.`
            : `Halts release ${release.name} once ${Math.round(release.halt_failure_ratio * 1000) / 10} % of its finished installs failed, after at least ${release.halt_min_reports}.`}
        </Text>
        <HealthGateFields value={gate} onChange={setGate} readOnly={!canWrite} />
        <ApiErrorAlert error={save.error} title="Could not save the health gate" />
        {canWrite && (
          <Group>
            <Button type="submit" variant="light" loading={save.isPending}>
              Save health gate
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
