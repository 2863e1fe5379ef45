/** A device by its identifier (unique within an organization), for the device API's first contact. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { DEVICE_ROW_COLUMNS, devices, type DeviceRow } from './schema';

export async function findDeviceByIdentifier(db: Executor, organizationId: string, identifier: string): Promise<DeviceRow | null> {
  const [row] = await db.select(DEVICE_ROW_COLUMNS).from(devices).where(and(eq(devices.organizationId, organizationId), eq(devices.identifier, identifier))).limit(1);
  return row ?? null;
}
