/** The fleet view (site/docs/canopy-core/reference/web-console/fleet-view.md). */
import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useRef, useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { EmptyState, LoadingRows } from '../../ui/States';
import { useLiveEvents } from '../events/useLiveEvents';
import { namesOf, useCohorts, useProducts } from '../products/queries';
import { DeviceTable } from './DeviceTable';
import { FleetCounts } from './FleetCounts';
import { FilterBuilder } from './FilterBuilder';
import { withClause } from './search-language';
import { deviceKeys } from '../devices/queries';
import { useDevicePage } from './queries';
import { countOf } from '../../ui/count';

// Shown only once devices are selected, so its inputs (Mantine's Select and TagsInput, about a
// third of the screen's code) are not part of the view's first load.
const BulkActions = lazy(() => import('./BulkActions').then((m) => ({ default: m.BulkActions })));

export interface FleetSearch {
  q?: string;
  page?: string;
}

/**
 * Follows device events and says whether it is connected. A component of its own so that
 * connecting, a moment after the first paint, redraws the badge and not the whole view (on a slow
 * phone a redraw of the view is a long task).
 */
function LiveBadge({ onDeviceEvent }: { onDeviceEvent(): void }) {
  const { live } = useLiveEvents({ type: 'device' }, onDeviceEvent);
  return (
    <Badge color={live ? 'green' : 'gray'} aria-live="polite">
      {live ? 'Live' : 'Connecting…'}
    </Badge>
  );
}

export function FleetView({ search, onSearch }: { search: FleetSearch; onSearch(next: FleetSearch): void }) {
  const { canWrite } = useSession();
  const queries = useQueryClient();
  const q = search.q ?? '';
  const devices = useDevicePage(q, search.page);
  const products = useProducts();
  const cohorts = useCohorts();
  const productNames = useMemo(() => namesOf(products.data), [products.data]);
  const cohortNames = useMemo(() => namesOf(cohorts.data), [cohorts.data]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const history = useRef<string[]>([]);

  // A device event refreshes the page in view and the counts (at most twice a second).
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onDeviceEvent = useCallback(() => {
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      void queries.invalidateQueries({ queryKey: deviceKeys.lists });
    }, 500);
  }, [queries]);

  const rows = devices.data?.items ?? [];
  const productOptions = (products.data ?? []).map((p) => ({ value: p.prn, label: p.name }));
  const cohortOptions = (cohorts.data ?? []).map((c) => ({ value: c.prn, label: `${c.name} (${productNames.get(c.product_prn) ?? '…'})` }));
  // Stable, so that the table's memoised rows are not redrawn by a new function each render.
  const toggle = useCallback((prn: string) => setSelected((s) => { const n = new Set(s); if (n.has(prn)) n.delete(prn); else n.add(prn); return n; }), []);
  const toggleAll = () => setSelected((s) => (rows.every((d) => s.has(d.prn)) ? new Set() : new Set(rows.map((d) => d.prn))));

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Fleet
        </Title>
        <LiveBadge onDeviceEvent={onDeviceEvent} />
      </Group>
      <Paper withBorder p="sm">
        <FilterBuilder value={q} products={productOptions} cohorts={cohortOptions} onApply={(next) => { history.current = []; setSelected(new Set()); onSearch({ q: next || undefined }); }} />
      </Paper>
      <FleetCounts
        search={q}
        onPick={(clause) => {
          history.current = [];
          setSelected(new Set());
          // The chip's clause narrows the filter in view; "Devices" clears it.
          onSearch({ q: clause === '' ? undefined : withClause(q, clause) });
        }}
      />
      {canWrite && selected.size > 0 && (
        <Suspense fallback={null}>
          <BulkActions selected={rows.filter((d) => selected.has(d.prn))} cohorts={cohortOptions} onDone={() => setSelected(new Set())} />
        </Suspense>
      )}
      <ApiErrorAlert error={devices.error} title="Could not list devices" />
      {devices.isPending ? (
        <LoadingRows rows={8} label="Loading devices" />
      ) : rows.length === 0 && !devices.error ? (
        q ? (
          <EmptyState title="No device matches this filter">Loosen a condition or clear the filter.</EmptyState>
        ) : (
          <EmptyState title="No devices yet">
            Devices appear here when you create them (Products → a product → Add device, or POST /devices) or when they first connect with a certificate of a registered CA.
          </EmptyState>
        )
      ) : (
        rows.length > 0 && (
          <DeviceTable devices={rows} productNames={productNames} cohortNames={cohortNames} selected={selected} onToggle={toggle} onToggleAll={toggleAll} selectable={canWrite} />
        )
      )}
      <Group justify="space-between">
        <Button variant="default" size="xs" disabled={!search.page} onClick={() => onSearch({ q: search.q, page: history.current.pop() || undefined })}>
          Previous page
        </Button>
        <Text size="sm" c="dimmed">
          {countOf(rows.length, 'device')} on this page
        </Text>
        <Button
          variant="default"
          size="xs"
          disabled={!devices.data?.next_page}
          onClick={() => {
            history.current.push(search.page ?? '');
            setSelected(new Set());
            onSearch({ q: search.q, page: devices.data!.next_page! });
          }}
        >
          Next page
        </Button>
      </Group>
    </Stack>
  );
}
