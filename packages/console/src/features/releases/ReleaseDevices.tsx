/**
 * The devices behind a release's counts (`GET /releases/{prn}/reports`): each with its latest
 * report, the reason a failed one gave and when, linked to the device's page.
 */
import { Badge, Box, Button, Paper, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { ApiErrorAlert } from '../../ui/ApiError';
import { AnchorLink } from '../../ui/AnchorLink';
import { LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { useReleaseReports } from './queries';
import { statusFilterOf, statusLabel, type BucketKey } from './rollout-summary';

export type DeviceFilter = Extract<BucketKey, 'failed' | 'in_progress' | 'on_it'> | 'all';

const FILTERS: { value: DeviceFilter; label: string }[] = [
  { value: 'failed', label: 'Failed' },
  { value: 'in_progress', label: 'Updating' },
  { value: 'on_it', label: 'Installed' },
  { value: 'all', label: 'All reports' },
];

const STATUS_COLORS: Record<string, string> = { failed: 'red', rolled_back: 'red', installed: 'teal', confirmed: 'teal', succeeded: 'teal' };

export function ReleaseDevices({ releasePrn, knownStatuses, filter, onFilter, soak = false }: { releasePrn: string; knownStatuses: readonly string[]; filter: DeviceFilter; onFilter(next: DeviceFilter): void; soak?: boolean }) {
  const reports = useReleaseReports(releasePrn, statusFilterOf(filter, knownStatuses, soak));
  const rows = reports.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Paper withBorder p="md" id="release-devices">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Devices and their reports
        </Title>
        <SegmentedControl aria-label="Show devices" value={filter} onChange={(v) => onFilter(v as DeviceFilter)} data={FILTERS} w="fit-content" style={{ maxWidth: '100%' }} />
        <ApiErrorAlert error={reports.error} title="Could not load the reports" />
        {reports.isPending ? (
          <LoadingRows rows={3} label="Loading reports" />
        ) : rows.length === 0 ? (
          <Text c="dimmed" size="sm">
            {filter === 'failed' ? 'No device has reported a failed install of this release.' : 'No device has reported on this release in this state.'}
          </Text>
        ) : (
          <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Device reports, scrollable">
            <Table aria-label="Device reports" miw={520}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Device</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Reason</Table.Th>
                  <Table.Th>Reported</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={r.device_prn} data-testid="release-device-row">
                    <Table.Td>
                      <AnchorLink to="/devices/$prn" params={{ prn: r.device_prn }}>
                        {r.device_identifier}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td>
                      {/* Installed on a release with a soak: not success until confirmed. */}
                      <Badge color={r.soak_ends_at ? 'blue' : (STATUS_COLORS[r.status] ?? 'blue')} title={r.soak_ends_at ? `Soaking until ${r.soak_ends_at}` : undefined}>
                        {r.soak_ends_at ? 'soaking' : statusLabel(r.status)}
                      </Badge>
                    </Table.Td>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>{r.reason ?? ''}</Table.Td>
                    <Table.Td>
                      <Time value={r.updated_at} relative />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Box>
        )}
        {reports.hasNextPage && (
          <Button variant="default" size="xs" w="fit-content" loading={reports.isFetchingNextPage} onClick={() => void reports.fetchNextPage()}>
            Show more devices
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
