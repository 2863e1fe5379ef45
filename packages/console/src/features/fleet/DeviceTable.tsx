/**
 * The fleet table: one server page of devices, its rows virtualised (only the rows in view are in
 * the DOM) so a page of any size scrolls smoothly, with a header that stays put.
 */
import { Badge, Checkbox, Group, ScrollArea, Table, Text } from '@mantine/core';
import { AnchorLink } from '../../ui/AnchorLink';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { Device } from '../../api/types';
import { Time } from '../../ui/Time';

const ROW_HEIGHT = 41;

interface Props {
  devices: Device[];
  productNames: Map<string, string>;
  cohortNames: Map<string, string>;
  selected: Set<string>;
  onToggle(prn: string): void;
  onToggleAll(): void;
  selectable: boolean;
}

export function DeviceTable({ devices, productNames, cohortNames, selected, onToggle, onToggleAll, selectable }: Props) {
  const viewport = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({ count: devices.length, getScrollElement: () => viewport.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = rows.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? rows.getTotalSize() - items[items.length - 1].end : 0;
  const allSelected = devices.length > 0 && devices.every((d) => selected.has(d.prn));
  return (
    <ScrollArea.Autosize mah="65vh" viewportRef={viewport} type="auto">
      <Table stickyHeader striped highlightOnHover miw={900} aria-label="Devices" aria-rowcount={devices.length + 1}>
        <Table.Thead>
          <Table.Tr>
            {selectable && (
              <Table.Th w={40}>
                <Checkbox aria-label="Select all devices on this page" checked={allSelected} indeterminate={!allSelected && selected.size > 0} onChange={onToggleAll} />
              </Table.Th>
            )}
            <Table.Th>Identifier</Table.Th>
            <Table.Th>Product</Table.Th>
            <Table.Th>Cohort</Table.Th>
            <Table.Th>Tags</Table.Th>
            <Table.Th>Target</Table.Th>
            <Table.Th>Release</Table.Th>
            <Table.Th>Last connected</Table.Th>
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {padTop > 0 && (
            <tr aria-hidden="true">
              <td style={{ height: padTop, padding: 0 }} colSpan={9} />
            </tr>
          )}
          {items.map((item) => {
            const device = devices[item.index];
            return (
              <Table.Tr key={device.prn} h={ROW_HEIGHT} data-testid="device-row" data-prn={device.prn} aria-rowindex={item.index + 2}>
                {selectable && (
                  <Table.Td>
                    <Checkbox aria-label={`Select ${device.identifier}`} checked={selected.has(device.prn)} onChange={() => onToggle(device.prn)} />
                  </Table.Td>
                )}
                <Table.Td>
                  <AnchorLink to="/devices/$prn" params={{ prn: device.prn }} fw={500}>
                    {device.identifier}
                  </AnchorLink>
                </Table.Td>
                <Table.Td>{productNames.get(device.product_prn) ?? '…'}</Table.Td>
                <Table.Td>{device.cohort_prn ? (cohortNames.get(device.cohort_prn) ?? '…') : <Text c="dimmed" size="sm">none</Text>}</Table.Td>
                <Table.Td>
                  <Group gap={4}>{(device.tags ?? []).map((tag) => <Badge key={tag} size="sm">{tag}</Badge>)}</Group>
                </Table.Td>
                <Table.Td>{device.target ?? ''}</Table.Td>
                <Table.Td data-testid="device-release">{device.reported_release_version ?? (device.reported_release_prn ? 'unknown version' : <Text c="dimmed" size="sm">none reported</Text>)}</Table.Td>
                <Table.Td>
                  <Time value={device.last_connected_at} relative />
                </Table.Td>
                <Table.Td>{device.quarantined ? <Badge color="orange">Quarantined</Badge> : online(device) ? <Badge color="green">Online</Badge> : <Badge color="gray">Offline</Badge>}</Table.Td>
              </Table.Tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden="true">
              <td style={{ height: padBottom, padding: 0 }} colSpan={9} />
            </tr>
          )}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}

/** Online: seen in the last 5 minutes (fleet-view.md). */
export function online(device: Device, now = Date.now()): boolean {
  // The window of the server's counts (GET /devices/counts `online`) and the legacy API's status.
  return !!device.last_connected_at && now - new Date(device.last_connected_at).getTime() < 5 * 60_000;
}
