/** Rollout progress of each release of a cohort (`GET /releases/{prn}/rollout`), refreshed every 5 s. */
import { Badge, Box, Stack, Table, Title } from '@mantine/core';
import { ApiErrorAlert } from '../../ui/ApiError';
import { AnchorLink } from '../../ui/AnchorLink';
import { useRollouts, type Release } from './queries';
import { RolloutControls } from './RolloutControls';
import { releaseState } from './release-state';

/** The concurrency cap's use: devices holding a place now, of the cap. */
export function capText(rollout: { updating_now: number; max_concurrent: number | null }): string {
  return `updating now ${rollout.updating_now} of ${rollout.max_concurrent}`;
}

export function RolloutProgress({ releases }: { releases: Release[] }) {
  const rollouts = useRollouts(releases);
  if (releases.length === 0) return null;
  const error = rollouts.find((r) => r.error)?.error;
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Rollout progress
      </Title>
      <ApiErrorAlert error={error} />
      {/* A focusable scroll region, so it can be scrolled by keyboard at any width. */}
      <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Rollout progress, scrollable">
        <Table aria-label="Rollout progress" miw={560}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Release</Table.Th>
              <Table.Th>On it / eligible / cohort</Table.Th>
              <Table.Th>Installing</Table.Th>
              <Table.Th>Succeeded</Table.Th>
              <Table.Th>Failed</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Controls</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {releases.map((release, i) => {
              const r = rollouts[i]?.data;
              return (
                <Table.Tr key={release.prn} data-testid="rollout-row">
                  <Table.Td>
                    <AnchorLink to="/releases/$prn" params={{ prn: release.prn }}>
                      {release.name}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td data-testid="rollout-counts">{r ? `${r.on_release} / ${r.eligible} / ${r.cohort_devices}` : '…'}</Table.Td>
                  <Table.Td>
                    {r ? r.reported.downloading + r.reported.installing + r.reported.rebooting : '…'}
                    {r && r.max_concurrent !== null && <Box fz="xs" c="dimmed" data-testid="rollout-cap">{capText(r)}</Box>}
                  </Table.Td>
                  {/* With a soak: confirmed devices, and those installed and still soaking beside them. */}
                  <Table.Td data-testid="rollout-succeeded">{r ? `${r.succeeded}${r.soak_seconds ? ` (${r.soaking} soaking)` : ''}` : '…'}</Table.Td>
                  <Table.Td>{r ? r.reported.failed + r.reported.rolled_back : '…'}</Table.Td>
                  <Table.Td>{(() => {
                    const state = releaseState({ ...release, halted_at: r?.halted_at ?? release.halted_at }, r);
                    return <Badge color={state.color}>{state.label}</Badge>;
                  })()}</Table.Td>
                  <Table.Td>
                    <RolloutControls release={release} />
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Box>
    </Stack>
  );
}
