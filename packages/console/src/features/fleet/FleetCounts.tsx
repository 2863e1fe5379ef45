/**
 * Counts by state of every device the filter selects, not just the page in view:
 * GET /devices/counts with the fleet view's search (one statement on the server).
 */
import { Badge, Group, Skeleton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../api/session-context';

interface DeviceCounts {
  total: number;
  quarantined: number;
  archived: number;
  online: number;
  never_connected: number;
  reported_release: number;
}

export function FleetCounts({ search }: { search: string }) {
  const { client } = useSession();
  const counts = useQuery({
    queryKey: ['devices', 'counts', search],
    queryFn: () => client.request<{ device_counts: DeviceCounts }>('GET', '/devices/counts', { query: search ? { search } : {} }).then((b) => b.device_counts),
    retry: false,
  });
  if (counts.error) return null; // the list beside it shows the same search's error
  if (!counts.data) return <Skeleton height={22} width={420} aria-label="Loading counts" />;
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
