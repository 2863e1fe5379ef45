/**
 * How the device API finds a device: by the SHA-256 fingerprint of the certificate it presented,
 * in one indexed query that also answers whether the certificate is still registered.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { deviceCertificates } from './schema';

export type DeviceRow = typeof devices.$inferSelect;

export interface CertifiedDevice {
  device: DeviceRow;
  certificateOrganizationId: string;
}

export async function findDeviceByCertificate(db: Executor, fingerprint: string, deviceId?: string): Promise<CertifiedDevice | null> {
  const [row] = await db
    .select({ device: devices, certificateOrganizationId: deviceCertificates.organizationId })
    .from(deviceCertificates)
    .innerJoin(devices, eq(devices.id, deviceCertificates.deviceId))
    .where(deviceId ? and(eq(deviceCertificates.fingerprint, fingerprint), eq(devices.id, deviceId)) : eq(deviceCertificates.fingerprint, fingerprint))
    .limit(1);
  return row ?? null;
}
