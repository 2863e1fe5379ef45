/** The event log: GET /events filtered by type, subtype and resource, with new events streamed in live. */
import { Badge, Code, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { EVENT_SUBTYPES, EVENT_TYPES, subtypesOf, type CanopyEvent, type EventType } from '@canopy/sdk/browser';
import { useState } from 'react';
import { ApiErrorAlert } from '../../ui/ApiError';
import { EmptyState, LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { useEvents, type EventSearch } from './queries';
import { useLiveEvents } from './useLiveEvents';

export type { EventSearch };

/** The subtypes the event catalogue gives the chosen type (every subtype when none is chosen). */
const subtypesFor = (type: string | undefined): string[] => ((EVENT_TYPES as string[]).includes(type ?? '') ? subtypesOf(type as EventType) : EVENT_SUBTYPES);

export function EventTimeline({ filters, title = 'Events', limit = 50 }: { filters: EventSearch; title?: string; limit?: number }) {
  const clean = Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) as EventSearch;
  const listed = useEvents(clean, limit);
  const [arrived, setArrived] = useState<{ key: string; events: CanopyEvent[] }>({ key: '', events: [] });
  const key = JSON.stringify(clean);
  const { live } = useLiveEvents(clean, (event) => setArrived((prev) => ({ key, events: [event, ...(prev.key === key ? prev.events : [])].slice(0, 200) })));
  const known = new Set((listed.data?.items ?? []).map((e) => e.prn));
  const events = [...(arrived.key === key ? arrived.events.filter((e) => !known.has(e.prn)) : []), ...(listed.data?.items ?? [])];
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={2} size="h3">
          {title}
        </Title>
        <Badge color={live ? 'green' : 'gray'}>
          {live ? 'Live' : 'Connecting…'}
        </Badge>
      </Group>
      <ApiErrorAlert error={listed.error} title="Could not list events" />
      {listed.isPending ? (
        <LoadingRows rows={4} label="Loading events" />
      ) : events.length === 0 ? (
        <EmptyState title="No events yet">Events appear here as devices connect and as people change things.</EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table aria-label={title} data-testid="event-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>About</Table.Th>
                <Table.Th>By</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {events.map((event) => (
                <Table.Tr key={event.prn}>
                  <Table.Td>
                    <Time value={event.inserted_at} />
                  </Table.Td>
                  <Table.Td>
                    <Code>
                      {event.type}.{event.data.type}
                    </Code>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace" truncate maw={320}>
                      {event.resource_prn ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace" truncate maw={240}>
                      {event.actor_prn ?? 'Canopy'}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

export function EventLog({ search, onSearch }: { search: EventSearch; onSearch(next: EventSearch): void }) {
  const [resource, setResource] = useState(search.resource_prn ?? '');
  return (
    <Stack>
      <Title order={1} size="h2">
        Event log
      </Title>
      <Group align="flex-end" wrap="wrap" component="form" onSubmit={(e) => { e.preventDefault(); onSearch({ ...search, resource_prn: resource.trim() || undefined }); }}>
        <Select label="Type" placeholder="All types" data={EVENT_TYPES} value={search.type ?? null} clearable onChange={(type) => onSearch({ ...search, type: type ?? undefined, subtype: subtypesFor(type ?? undefined).includes(search.subtype ?? '') ? search.subtype : undefined })} w={160} />
        <Select label="Subtype" placeholder="All subtypes" data={subtypesFor(search.type)} value={search.subtype ?? null} clearable searchable onChange={(subtype) => onSearch({ ...search, subtype: subtype ?? undefined })} w={200} />
        <TextInput label="About (resource prn)" value={resource} onChange={(e) => setResource(e.currentTarget.value)} w={360} />
      </Group>
      <EventTimeline filters={search} title="Events" />
    </Stack>
  );
}
