/**
 * The legacy device call `GET /device/update` (docs: canopy-core/reference/legacy-api/device-update):
 * which deployment's firmware the device should install (deployment-match.ts), a download URL
 * valid 24 hours unless `preflight`, and one counted attempt per non-preflight call offering one.
 *
 * `x-canopy-uuid` (the firmware the device runs) is required: 400 without it. The public API asks
 * for all x-canopy-* headers together; Canopy answers a partial set rather than refuse a device
 * in the field: the version is x-canopy-version, else that uuid's firmware's, else unknown (then
 * no version condition matches); product, platform and architecture are not needed (the device's
 * product is its registered one) and only recorded by device.connected.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import type { DeviceRow } from '../devices/schema';
import { parameterError } from '../http/errors';
import type { Platform } from '../platform';
import { products } from '../products/schema';
import { matchDeployment } from './deployment-match';
import { firmwareMeta, firmwareUrl } from './firmware-service';
import { deploymentAttempts, deployments, firmwares, legacyDeviceFirmware } from './schema';

export interface LegacyHeaders {
  uuid: string | undefined;
  version: string | undefined;
}

const HEADER_VALUE = /^[\x21-\x7e][\x20-\x7e]{0,127}$/;

function headerValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!HEADER_VALUE.test(value)) throw parameterError(name, 'invalid_value');
  return value;
}

export async function legacyUpdate(platform: Platform, device: DeviceRow, headers: LegacyHeaders, preflight: boolean) {
  const { db } = platform;
  const uuid = headerValue('x-canopy-uuid', headers.uuid)?.toLowerCase();
  if (uuid === undefined) throw parameterError('x-canopy-uuid', 'required');
  const sentVersion = headerValue('x-canopy-version', headers.version) ?? null;
  const [running] = await db
    .select({ version: firmwares.version })
    .from(firmwares)
    .where(and(eq(firmwares.organizationId, device.organizationId), eq(firmwares.uuid, uuid)))
    .limit(1);
  const firmwareVersion = sentVersion ?? running?.version ?? null;
  await rememberFirmware(db, device, uuid, firmwareVersion);

  const candidates = await db
    .select({ deployment: deployments, firmware: firmwares, productName: products.name })
    .from(deployments)
    .innerJoin(firmwares, eq(firmwares.id, deployments.firmwareId))
    .innerJoin(products, eq(products.id, deployments.productId))
    .where(and(eq(deployments.organizationId, device.organizationId), eq(deployments.productId, device.productId), eq(deployments.isActive, true)));
  const match = matchDeployment(
    candidates.map((c) => ({ id: c.deployment.id, insertedAt: c.deployment.insertedAt, conditionsVersion: c.deployment.conditionsVersion, conditionsTags: c.deployment.conditionsTags, firmwareUuid: c.firmware.uuid, row: c })),
    { tags: device.tags, firmwareVersion, firmwareUuid: uuid },
  );
  if (!match) return { update_available: false, firmware_url: null, firmware_meta: null, deployment_id: null };
  const { firmware, productName, deployment } = match.row;
  if (!preflight) await countAttempt(db, deployment.id, device.id);
  return {
    update_available: true,
    firmware_url: preflight ? null : await firmwareUrl(platform, firmware),
    firmware_meta: { ...firmwareMeta(firmware), product: productName },
    // Always null, as in the public API: the deployment is an admin-side notion.
    deployment_id: null,
  };
}

async function rememberFirmware(db: Executor, device: DeviceRow, uuid: string, version: string | null): Promise<void> {
  await db
    .insert(legacyDeviceFirmware)
    .values({ deviceId: device.id, organizationId: device.organizationId, firmwareUuid: uuid, version })
    .onConflictDoUpdate({ target: legacyDeviceFirmware.deviceId, set: { firmwareUuid: uuid, version, lastCommunicationAt: sql`now()` } });
}

async function countAttempt(db: Executor, deploymentId: string, deviceId: string): Promise<void> {
  await db
    .insert(deploymentAttempts)
    .values({ deploymentId, deviceId, attempts: 1 })
    .onConflictDoUpdate({ target: [deploymentAttempts.deploymentId, deploymentAttempts.deviceId], set: { attempts: sql`${deploymentAttempts.attempts} + 1`, updatedAt: sql`now()` } });
}
