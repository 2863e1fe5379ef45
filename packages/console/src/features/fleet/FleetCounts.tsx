/**
 * Counts by state of every device the filter selects, not just the page in view
 * (features/fleet/queries.ts deviceCountsQuery). The fleet route's loader asks for them with the
 * page of devices (prefetch.ts), so they are drawn with the rows, not after them.
 */
import { Badge, Group, Skeleton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../api/session-context';
import { deviceCountsQuery } from './queries';

export function FleetCounts({ search }: { search: string }) {
  const { client } = useSession();
  const counts = useQuery(deviceCountsQuery(client, search));
  if (counts.error) return null; // the list beside it shows the same search's error
  // As wide as the badges on a desktop, never wider than a phone.
  if (!counts.data) return <Skeleton height={22} maw={420} aria-label="Loading counts" />;
  const c = counts.data;
  return (
    <Group gap="xs" aria-label="Devices by state" role="group" data-testid="fleet-counts">
      <Badge color="blue">Devices {c.total}</Badge>
      <Badge color="green">Online {c.online}</Badge>
      <Badge color="gray">Offline {c.total - c.online}</Badge>
      <Badge color="orange">Quarantined {c.quarantined}</Badge>
      <Badge color="gray">Never connected {c.never_connected}</Badge>
      <Badge color="gray">Archived {c.archived}</Badge>
    </Group>
  );
}
