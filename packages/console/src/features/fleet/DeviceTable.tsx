/**
 * The fleet table: one server page of devices, its rows virtualised (only the rows in view are in
 * the DOM) so a page of any size scrolls smoothly, with a header that stays put. Rows are memoised:
 * a refetch or a live event redraws only the rows whose device changed.
 */
import { useRouter } from '@tanstack/react-router';
import { elementScroll, useVirtualizer, type Virtualizer, type VirtualizerOptions } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, type MouseEvent, type ReactNode } from 'react';
import type { Device } from '../devices/queries';
import { Time } from '../../ui/Time';
import classes from './DeviceTable.module.css';

const ROW_HEIGHT = 41;
const COLUMNS = 9;

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
  // The viewport is 65vh tall once a page fills it (DeviceTable.module.css): starting from that
  // size, the first render draws the rows in view, and measuring finds the same range (no redraw).
  // Three rows beyond the view keep scrolling smooth; every row more is DOM the first paint builds.
  const rows = useVirtualizer({ count: devices.length, getScrollElement: () => viewport.current, estimateSize: () => ROW_HEIGHT, overscan: 3, initialRect: { width: window.innerWidth, height: Math.round(window.innerHeight * 0.65) }, observeElementRect: observeViewportSize, scrollToFn: scrollViewport });
  const items = rows.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? rows.getTotalSize() - items[items.length - 1].end : 0;
  const allSelected = devices.length > 0 && devices.every((d) => selected.has(d.prn));
  return (
    <div className={classes.frame}>
      <div ref={viewport} className={classes.viewport}>
        <table className={classes.table} aria-label="Devices" aria-rowcount={devices.length + 1}>
          <thead>
            <tr>
              {selectable && (
                <th className={classes.check}>
                  <SelectAll checked={allSelected} indeterminate={!allSelected && selected.size > 0} onChange={onToggleAll} />
                </th>
              )}
              <th>Identifier</th>
              <th>Product</th>
              <th>Cohort</th>
              <th>Tags</th>
              <th>Target</th>
              <th>Release</th>
              <th>Last connected</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && <Spacer height={padTop} />}
            {items.map((item) => {
              const device = devices[item.index];
              return (
                <DeviceRow
                  key={device.prn}
                  device={device}
                  index={item.index}
                  productName={productNames.get(device.product_prn)}
                  cohortName={device.cohort_prn ? cohortNames.get(device.cohort_prn) : undefined}
                  selectable={selectable}
                  selected={selected.has(device.prn)}
                  onToggle={onToggle}
                />
              );
            })}
            {padBottom > 0 && <Spacer height={padBottom} />}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * The viewport's size (its border box, like initialRect), from a ResizeObserver alone. The
 * library's default also measures the element the moment the table mounts, which forces a layout
 * of the whole page inside the task that drew it; the observer reports after the browser's own
 * layout, at no extra cost.
 */
function observeViewportSize(instance: Virtualizer<HTMLDivElement, Element>, onSize: (rect: { width: number; height: number }) => void) {
  const element = instance.scrollElement;
  if (!element) return;
  const observer = new ResizeObserver(([entry]) => {
    const [box] = entry.borderBoxSize;
    onSize({ width: Math.round(box.inlineSize), height: Math.round(box.blockSize) });
  });
  observer.observe(element, { box: 'border-box' });
  return () => observer.disconnect();
}

/**
 * Scrolls the viewport like the library's elementScroll, except when it is already at the offset
 * asked for. The library writes its starting offset (0) the moment the table mounts; a new viewport
 * is already there, and scrollTo forces a layout of the whole page inside the task that drew it
 * (about 160 ms of the fleet view's first load on a phone-speed CPU).
 */
const scrollViewport: VirtualizerOptions<HTMLDivElement, Element>['scrollToFn'] = (offset, options, instance) => {
  if (offset + (options.adjustments ?? 0) === instance.scrollOffset && options.behavior !== 'smooth') return;
  elementScroll(offset, options, instance);
};

const Spacer = ({ height }: { height: number }) => (
  <tr aria-hidden="true" className={classes.spacer}>
    <td style={{ height }} colSpan={COLUMNS} />
  </tr>
);

/** The header's checkbox; `indeterminate` is a DOM property only, not an attribute. */
function SelectAll({ checked, indeterminate, onChange }: { checked: boolean; indeterminate: boolean; onChange(): void }) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return <input ref={box} type="checkbox" aria-label="Select all devices on this page" checked={checked} onChange={onChange} />;
}

interface RowProps {
  device: Device;
  index: number;
  /** Undefined while the products or cohorts are loading. */
  productName: string | undefined;
  cohortName: string | undefined;
  selectable: boolean;
  selected: boolean;
  onToggle(prn: string): void;
}

const DeviceRow = memo(function DeviceRow({ device, index, productName, cohortName, selectable, selected, onToggle }: RowProps) {
  return (
    <tr className={classes.row} data-striped={index % 2 === 0 || undefined} data-testid="device-row" data-prn={device.prn} aria-rowindex={index + 2}>
      {selectable && (
        <td className={classes.check}>
          <input type="checkbox" aria-label={`Select ${device.identifier}`} checked={selected} onChange={() => onToggle(device.prn)} />
        </td>
      )}
      <td>
        <DeviceLink prn={device.prn}>{device.identifier}</DeviceLink>
      </td>
      <td>{productName ?? '…'}</td>
      <td>{device.cohort_prn ? (cohortName ?? '…') : <span className={classes.dimmed}>none</span>}</td>
      <td>
        <span className={classes.tags}>
          {(device.tags ?? []).map((tag) => (
            <span key={tag} className={`${classes.badge} ${classes.tag}`}>
              {tag}
            </span>
          ))}
        </span>
      </td>
      <td>{device.target ?? ''}</td>
      <td data-testid="device-release">{device.reported_release_version ?? (device.reported_release_prn ? 'unknown version' : <span className={classes.dimmed}>none reported</span>)}</td>
      <td>
        <Time value={device.last_connected_at} relative />
      </td>
      <td>
        <StatusBadge device={device} />
      </td>
    </tr>
  );
});

/**
 * A link to the device's page that the router follows, as a plain anchor: the router's <Link>
 * resolves a location on every row it draws, about a tenth of the fleet view's first render on a
 * phone-speed CPU, where this href is one string. Clicks with a modifier (a new tab or window) stay
 * the browser's, as with <Link>.
 */
function DeviceLink({ prn, children }: { prn: string; children: ReactNode }) {
  const router = useRouter();
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    void router.navigate({ to: '/devices/$prn', params: { prn } });
  };
  return (
    <a href={`${router.basepath}/devices/${encodeURIComponent(prn)}`} className={classes.link} onClick={follow}>
      {children}
    </a>
  );
}

function StatusBadge({ device }: { device: Device }) {
  const [color, label] = device.quarantined ? ['orange', 'Quarantined'] : online(device) ? ['green', 'Online'] : ['gray', 'Offline'];
  return (
    <span className={classes.badge} data-color={color}>
      {label}
    </span>
  );
}

/** Online: seen in the last 5 minutes (fleet-view.md). */
export function online(device: Device, now = Date.now()): boolean {
  // The window of the server's counts (GET /devices/counts `online`) and the legacy API's status.
  return !!device.last_connected_at && now - new Date(device.last_connected_at).getTime() < 5 * 60_000;
}
