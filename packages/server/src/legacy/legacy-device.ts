/**
 * The legacy device view (docs: canopy-core/reference/legacy-api/organization-scoped): the
 * current device fields plus what fwup devices report through `GET /device/update`:
 *
 *   healthy             `!quarantined`: the public API's "unhealthy" devices get no update,
 *                       which is what quarantine means in Canopy; writing `healthy: false`
 *                       quarantines the device (and `true` lifts it);
 *   last_communication  the later of the device's last connection and its last legacy update
 *                       call, or "never"; accepted on input for compatibility and ignored (the
 *                       server, not the client, knows when a device last called);
 *   status              "online" when it communicated within ONLINE_WINDOW_MS, else "offline";
 *   version             the firmware version it last reported, or "unknown";
 *   firmware_metadata   the meta fields of the firmware with the uuid it last reported, or null.
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
