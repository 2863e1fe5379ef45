/** A device by its identifier (unique within an organization), for the device API's first contact. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { devices } from './schema';

export async function findDeviceByIdentifier(db: Executor, organizationId: string, identifier: string): Promise<typeof devices.$inferSelect | null> {
  const [row] = await db.select().from(devices).where(and(eq(devices.organizationId, organizationId), eq(devices.identifier, identifier))).limit(1);
  return row ?? null;
}
