/**
 * `device.disconnected`: recorded when an admitted connection to the device API closes, on the
 * socket's `close`, off every request's path. A connection that was refused, or never got past
 * its first request's admission, records nothing (it never recorded `device.connected` either).
 *
 * The device object is read from the device row as it is at close (its identifier and cohort may
 * have changed during a long-lived connection), with one statement that also records the event
 * (and its webhook outbox rows, events/service.ts recordEvent). A failure is logged, never thrown:
 * the socket is gone and nothing waits on this.
 */
import { eq } from 'drizzle-orm';
import { cohorts } from '../cohorts/schema';
import { toRfc3339 } from '../core/time';
import { devices } from '../devices/schema';
import { recordEvent } from '../events/service';
import type { Platform } from '../platform';
import { eventDeviceObject } from './auth-events';

export interface ClosedConnection {
  deviceId: string;
  organizationId: string;
  ip: string;
  /** When the connection's first request arrived (ms since the epoch). */
  openedAt: number;
  closedAt: number;
}

export async function recordDisconnected(platform: Platform, closed: ClosedConnection): Promise<void> {
  const { db } = platform;
  const [row] = await db
    .select({ identifier: devices.identifier, cohortId: devices.cohortId, cohortName: cohorts.name })
    .from(devices)
    .leftJoin(cohorts, eq(cohorts.id, devices.cohortId))
    .where(eq(devices.id, closed.deviceId));
  // No such row any more: no device to name.
  if (!row) return;
  const object = eventDeviceObject({ id: closed.deviceId, organizationId: closed.organizationId, identifier: row.identifier, cohortId: row.cohortId });
  const device = object.cohort ? { ...object, cohort: { ...object.cohort, cohort_name: row.cohortName } } : object;
  await recordEvent(db, {
    organizationId: closed.organizationId,
    type: 'device',
    subtype: 'disconnected',
    actorPrn: device.prn,
    resourcePrn: device.prn,
    data: {
      device,
      ip_address: closed.ip,
      connected_at: toRfc3339(new Date(closed.openedAt)),
      duration_ms: Math.max(0, closed.closedAt - closed.openedAt),
    },
  });
}
