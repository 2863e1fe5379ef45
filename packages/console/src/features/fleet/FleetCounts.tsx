/**
 * Counts by state of every device the filter selects, not just the page in view
 * (features/fleet/queries.ts deviceCountsQuery). The fleet route's loader asks for them with the
 * page of devices (prefetch.ts), so they are drawn with the rows, not after them. Each count is
 * a button that narrows the filter to what it counts.
 */
import { Badge, Group, Skeleton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../api/session-context';
import { deviceCountsQuery } from './queries';

/** A count that filters the fleet to what it counts (`filter` is a clause, '' for every device). */
function Chip({ color, filter, onPick, children }: { color: string; filter: string; onPick(filter: string): void; children: React.ReactNode }) {
  return (
    <Badge component="button" type="button" color={color} style={{ cursor: 'pointer' }} onClick={() => onPick(filter)} tt="none">
      {children}
    </Badge>
  );
}

export function FleetCounts({ search, onPick }: { search: string; onPick(filter: string): void }) {
  const { client } = useSession();
  const counts = useQuery(deviceCountsQuery(client, search));
  if (counts.error) return null; // the list beside it shows the same search's error
  // As wide as the badges on a desktop, never wider than a phone.
  if (!counts.data) return <Skeleton height={22} maw={420} aria-label="Loading counts" />;
  const c = counts.data;
  return (
    <Group gap="xs" aria-label="Devices by state" role="group" data-testid="fleet-counts">
      <Chip color="blue" filter="" onPick={onPick}>Devices {c.total}</Chip>
      <Chip color="green" filter="online:true" onPick={onPick}>Online {c.online}</Chip>
      <Chip color="gray" filter="online:false" onPick={onPick}>Offline {c.total - c.online}</Chip>
      <Chip color="orange" filter="quarantined:true" onPick={onPick}>Quarantined {c.quarantined}</Chip>
      <Chip color="gray" filter="last_connected_at:null" onPick={onPick}>Never connected {c.never_connected}</Chip>
      <Chip color="gray" filter="archived:true" onPick={onPick}>Archived {c.archived}</Chip>
    </Group>
  );
}
