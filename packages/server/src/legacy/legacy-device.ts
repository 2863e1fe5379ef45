/**
 * The legacy device view: the current device fields plus what fwup devices report through
 * `GET /device/update` (healthy, last_communication, status, version, firmware_metadata; each
 * field's meaning: docs canopy-core/reference/legacy-api/organization-scoped).
 *
 * `healthy` is `!quarantined`: the public API's unhealthy devices get no update, which is what
 * quarantine means in Canopy. `last_communication` is accepted on input and ignored: the server,
 * not the client, knows when a device last called. `status` is online within ONLINE_WINDOW_MS.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import type { DeviceRow } from '../devices/schema';
import { deviceToWire } from '../devices/service';
import { toRfc3339 } from '../core/time';
import { products } from '../products/schema';
import { firmwareMeta } from './firmware-service';
import { firmwares, legacyDeviceFirmware } from './schema';

export const ONLINE_WINDOW_MS = 5 * 60_000;

export async function legacyDevicesToWire(db: Executor, rows: DeviceRow[], now = Date.now()) {
  if (rows.length === 0) return [];
  const reports = await db.select().from(legacyDeviceFirmware).where(inArray(legacyDeviceFirmware.deviceId, rows.map((r) => r.id)));
  const byDevice = new Map(reports.map((r) => [r.deviceId, r]));
  const uuids = [...new Set(reports.map((r) => r.firmwareUuid))];
  const known = uuids.length === 0
    ? []
    : await db
        .select({ firmware: firmwares, productName: products.name })
        .from(firmwares)
        .innerJoin(products, eq(products.id, firmwares.productId))
        .where(and(eq(firmwares.organizationId, rows[0].organizationId), inArray(firmwares.uuid, uuids)));
  const byUuid = new Map(known.map((k) => [k.firmware.uuid, { ...firmwareMeta(k.firmware), product: k.productName }]));
  return rows.map((row) => {
    const report = byDevice.get(row.id);
    const times = [row.lastConnectedAt, report?.lastCommunicationAt].filter((t): t is string => Boolean(t)).map((t) => toRfc3339(t)!);
    const last = times.sort().at(-1) ?? null;
    return {
      ...deviceToWire(row),
      healthy: !row.quarantined,
      last_communication: last ?? 'never',
      status: last !== null && now - Date.parse(last) < ONLINE_WINDOW_MS ? 'online' : 'offline',
      version: report?.version ?? 'unknown',
      firmware_metadata: report ? (byUuid.get(report.firmwareUuid) ?? null) : null,
    };
  });
}
