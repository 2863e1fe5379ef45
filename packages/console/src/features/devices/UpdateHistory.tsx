/**
 * A device's update history: each attempt (update-history.ts) with its release, the states it
 * went through with their times, and the reason it failed; apart from the raw events below it.
 */
import { Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { ApiErrorAlert } from '../../ui/ApiError';
import { AnchorLink } from '../../ui/AnchorLink';
import { LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { bundleLabel, useBundles } from '../bundles/queries';
import { useAllReleases } from '../releases/queries';
import { statusLabel } from '../releases/rollout-summary';
import { updateAttempts, type UpdateAttempt } from './update-history';
import { useUpdateReports } from './queries';

const COLORS: Record<string, string> = { installed: 'teal', succeeded: 'teal', failed: 'red', rolled_back: 'red' };

export function UpdateHistory({ prn }: { prn: string }) {
  const reports = useUpdateReports(prn);
  const releases = useAllReleases();
  const bundles = useBundles();
  const releaseNames = new Map((releases.data ?? []).map((r) => [r.prn, r.name]));
  const bundleNames = new Map((bundles.data ?? []).map((b) => [b.prn, bundleLabel(b)]));
  const attempts = updateAttempts(reports.data?.items ?? []);
  const subject = (a: UpdateAttempt) =>
    a.releasePrn ? (
      <>
        Release{' '}
        <AnchorLink to="/releases/$prn" params={{ prn: a.releasePrn }}>
          {releaseNames.get(a.releasePrn) ?? 'a deleted release'}
        </AnchorLink>
      </>
    ) : (
      <>Bundle {bundleNames.get(a.bundlePrn) ?? 'a deleted bundle'} (outside any release)</>
    );
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Update history
        </Title>
        <ApiErrorAlert error={reports.error} title="Could not load the update history" />
        {reports.isPending ? (
          <LoadingRows rows={2} label="Loading update history" />
        ) : attempts.length === 0 ? (
          <Text size="sm" c="dimmed">
            This device has not reported any update yet.
          </Text>
        ) : (
          <Stack gap="xs" component="ol" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Update attempts, newest first">
            {attempts.map((a) => (
              <Paper key={`${a.releasePrn ?? a.bundlePrn} ${a.startedAt}`} component="li" withBorder p="sm" data-testid="update-attempt">
                <Group justify="space-between" gap="xs">
                  <Text fw={600} size="sm">
                    {subject(a)}
                  </Text>
                  <Badge color={COLORS[a.status] ?? 'blue'}>{a.finished ? statusLabel(a.status) : `${statusLabel(a.status)} (in progress)`}</Badge>
                </Group>
                {a.reason && (
                  <Text size="sm" data-testid="attempt-reason">
                    Reason: {a.reason}
                  </Text>
                )}
                <Text size="xs" component="div">
                  {a.steps.map((s, i) => (
                    <span key={i}>
                      {i > 0 && ' → '}
                      {statusLabel(s.status)}
                      {s.progress !== null && ` ${Math.round(s.progress * 100)} %`} <Time value={s.at} />
                    </span>
                  ))}
                </Text>
              </Paper>
            ))}
          </Stack>
        )}
        {reports.data?.next_page && (
          <Text size="xs" c="dimmed">
            The latest 100 reports are shown; older ones are in the events.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
