/**
 * The trust posture: which root version each device trusts, as it last said by asking for the
 * next one (`GET /tuf/{n+1}.root.json` means it trusts n), and which are behind the current.
 */
import { and, count, eq, lt, sql } from 'drizzle-orm';
import { resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Executor } from '../db/connection';
import type { AuthenticatedDevice } from '../http/device-request';
import { tufDeviceRoots } from './schema';
import { trustedRoot } from './store';

export async function recordDeviceRoot(db: Executor, device: AuthenticatedDevice, rootVersion: number) {
  await db
    .insert(tufDeviceRoots)
    .values({ deviceId: device.row.id, organizationId: device.organizationId, rootVersion })
    .onConflictDoUpdate({ target: tufDeviceRoots.deviceId, set: { rootVersion, reportedAt: sql`now()` } });
}

export async function trustPosture(db: Executor, organizationId: string) {
  const current = (await trustedRoot(db, organizationId))?.signed.version ?? null;
  const byVersion = await db
    .select({ version: tufDeviceRoots.rootVersion, devices: count() })
    .from(tufDeviceRoots)
    .where(eq(tufDeviceRoots.organizationId, organizationId))
    .groupBy(tufDeviceRoots.rootVersion)
    .orderBy(tufDeviceRoots.rootVersion);
  const stale =
    current === null
      ? []
      : await db
          .select({ deviceId: tufDeviceRoots.deviceId, version: tufDeviceRoots.rootVersion, reportedAt: tufDeviceRoots.reportedAt })
          .from(tufDeviceRoots)
          .where(and(eq(tufDeviceRoots.organizationId, organizationId), lt(tufDeviceRoots.rootVersion, current)))
          .orderBy(tufDeviceRoots.reportedAt)
          .limit(100);
  return {
    current_root_version: current,
    root_versions: byVersion.map((row) => ({ version: row.version, devices: Number(row.devices) })),
    stale_devices: byVersion.filter((row) => current !== null && row.version < current).reduce((sum, row) => sum + Number(row.devices), 0),
    stale: stale.map((row) => ({ device_prn: resourcePrn(organizationId, 'device', row.deviceId), root_version: row.version, reported_at: toRfc3339(row.reportedAt) })),
  };
}
