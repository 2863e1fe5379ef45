/**
 * How the device API finds a device: by the SHA-256 fingerprint of the certificate it presented,
 * in one indexed query that also answers whether the certificate is still registered.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { caCertificates, deviceCertificates } from './schema';

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

/**
 * For a chain already known to be signed by the CA `caId` (verified-chains.ts): the device of the
 * registered certificate and whether that CA is still registered, in the same one query, so a
 * reconnecting device costs one round trip before its request runs.
 */
export async function findDeviceByCertificateUnderCa(db: Executor, fingerprint: string, caId: string): Promise<(CertifiedDevice & { caRegistered: boolean }) | null> {
  const [row] = await db
    .select({
      device: devices,
      certificateOrganizationId: deviceCertificates.organizationId,
      caRegistered: sql<boolean>`exists (select 1 from ${caCertificates} where ${caCertificates.id} = ${caId})`,
    })
    .from(deviceCertificates)
    .innerJoin(devices, eq(devices.id, deviceCertificates.deviceId))
    .where(eq(deviceCertificates.fingerprint, fingerprint))
    .limit(1);
  return row ?? null;
}
