/**
 * The event log: GET /events filtered by type, subtype and resource, paged, with new events
 * streamed in live (the feed can be paused: arrivals are held and counted, not drawn). Rows name
 * what they are about and link to it; each row's data opens in place.
 */
import { Badge, Button, Code, Group, Select, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { catalogueEntry, EVENT_SUBTYPES, EVENT_TYPES, subtypesOf, type CanopyEvent, type EventType } from '@canopy/sdk/browser';
import { useMemo, useRef, useState } from 'react';
import { countOf } from '../../ui/count';
import { PrnLink } from '../../ui/PrnLink';
import { bundleLabel, useBundles } from '../bundles/queries';
import { namesOf, useCohorts, useProducts } from '../products/queries';
import { useAllReleases } from '../releases/queries';
import { nameOf, type Names } from './event-names';
import { ApiErrorAlert } from '../../ui/ApiError';
import { EmptyState, LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { useEvents, type EventSearch } from './queries';
import { useLiveEvents } from './useLiveEvents';

export type { EventSearch };

/** The subtypes the event catalogue gives the chosen type (every subtype when none is chosen). */
const subtypesFor = (type: string | undefined): string[] => ((EVENT_TYPES as string[]).includes(type ?? '') ? subtypesOf(type as EventType) : EVENT_SUBTYPES);

/** Names of the resources the console has lists of, for events' prns. */
function useResourceNames(): Names {
  const releases = useAllReleases();
  const cohorts = useCohorts();
  const products = useProducts();
  const bundles = useBundles();
  return useMemo(
    () => new Map([...namesOf(releases.data), ...namesOf(cohorts.data), ...namesOf(products.data), ...(bundles.data ?? []).map((b) => [b.prn, bundleLabel(b)] as const)]),
    [releases.data, cohorts.data, products.data, bundles.data],
  );
}

export function EventTimeline({ filters, title = 'Events', limit = 50 }: { filters: EventSearch; title?: string; limit?: number }) {
  const clean = Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) as EventSearch;
  const listed = useEvents(clean, limit);
  const names = useResourceNames();
  const key = JSON.stringify(clean);
  // Events that arrived live: shown at the top, or held while the feed is paused.
  const [arrived, setArrived] = useState<{ key: string; shown: CanopyEvent[]; held: CanopyEvent[] }>({ key: '', shown: [], held: [] });
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const { live } = useLiveEvents(clean, (event) =>
    setArrived((prev) => {
      const same = prev.key === key ? prev : { key, shown: [], held: [] };
      return pausedRef.current ? { ...same, held: [event, ...same.held].slice(0, 500) } : { ...same, shown: [event, ...same.shown].slice(0, 200) };
    }),
  );
  const current = arrived.key === key ? arrived : { shown: [], held: [] };
  const resume = () => {
    setPaused(false);
    setArrived((prev) => ({ ...prev, shown: [...prev.held, ...prev.shown].slice(0, 200), held: [] }));
  };
  const pages = listed.data?.pages.flatMap((p) => p.items) ?? [];
  const known = new Set(pages.map((e) => e.prn));
  const events = [...current.shown.filter((e) => !known.has(e.prn)), ...pages];
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={2} size="h3">
          {title}
        </Title>
        <Group gap="xs">
          <Badge color={paused ? 'yellow' : live ? 'green' : 'gray'} data-testid="live-state">
            {paused ? `Paused, ${countOf(current.held.length, 'new event')}` : live ? 'Live' : 'Connecting…'}
          </Badge>
          <Button size="xs" variant="default" onClick={() => (paused ? resume() : setPaused(true))}>
            {paused ? 'Resume live feed' : 'Pause live feed'}
          </Button>
        </Group>
      </Group>
      <ApiErrorAlert error={listed.error} title="Could not list events" />
      {listed.isPending ? (
        <LoadingRows rows={4} label="Loading events" />
      ) : events.length === 0 ? (
        <EmptyState title="No events yet">Events appear here as devices connect and as people change things.</EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={title} data-testid="event-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>About</Table.Th>
                <Table.Th>By</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Data</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {events.map((event) => (
                <EventRow key={event.prn} event={event} names={names} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {listed.hasNextPage && (
        <Button variant="default" size="xs" w="fit-content" loading={listed.isFetchingNextPage} onClick={() => void listed.fetchNextPage()}>
          Show older events
        </Button>
      )}
    </Stack>
  );
}

function EventRow({ event, names }: { event: CanopyEvent; names: Names }) {
  const [open, setOpen] = useState(false);
  const data = event.data.data ?? {};
  const name = `${event.type}.${event.data.type}`;
  const id = `event-data-${event.prn.split(':').pop()}`;
  return (
    <>
      <Table.Tr data-testid="event-row">
        <Table.Td>
          <Time value={event.inserted_at} />
        </Table.Td>
        <Table.Td>
          <Code>{name}</Code>
          <Text size="xs" c="dimmed">
            {catalogueEntry(name)?.summary ?? ''}
          </Text>
        </Table.Td>
        <Table.Td>{event.resource_prn ? <PrnLink prn={event.resource_prn} name={nameOf(event.resource_prn, data, names)} /> : ''}</Table.Td>
        <Table.Td>{event.actor_prn ? <PrnLink prn={event.actor_prn} name={nameOf(event.actor_prn, data, names)} /> : 'Canopy'}</Table.Td>
        <Table.Td>
          <Button size="compact-xs" variant="default" aria-expanded={open} aria-controls={open ? id : undefined} onClick={() => setOpen(!open)}>
            {open ? 'Hide data' : 'Show data'}
          </Button>
        </Table.Td>
      </Table.Tr>
      {open && (
        <Table.Tr>
          <Table.Td colSpan={5} id={id}>
            <Code block data-testid="event-data" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {JSON.stringify(data, null, 2)}
            </Code>
          </Table.Td>
        </Table.Tr>
      )}
    </>
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
