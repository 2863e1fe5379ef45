/**
 * How the device API finds a device: by the SHA-256 fingerprint of the certificate it presented,
 * in one indexed query that also answers whether the certificate is still registered.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { prepared } from '../read-path/prepared-queries';
import { DEVICE_ROW_COLUMNS, devices, type DeviceRow } from '../devices/schema';
import { caCertificates, deviceCertificates } from './schema';

export type { DeviceRow };

export interface CertifiedDevice {
  device: DeviceRow;
  certificateOrganizationId: string;
}

// Prepared (read-path/owned-rows.ts): these run on every new device connection, and on every request
// of a keep-alive one, where building the drizzle query would cost more than running it.
const byFingerprint = eq(deviceCertificates.fingerprint, sql.placeholder('fingerprint'));

function deviceSelection(db: Executor) {
  return db.select({ device: DEVICE_ROW_COLUMNS, certificateOrganizationId: deviceCertificates.organizationId }).from(deviceCertificates).innerJoin(devices, eq(devices.id, deviceCertificates.deviceId));
}

export async function findDeviceByCertificate(db: Executor, fingerprint: string, deviceId?: string): Promise<CertifiedDevice | null> {
  const query = deviceId
    ? prepared(db, 'device_by_certificate_of_device', () => deviceSelection(db).where(and(byFingerprint, eq(devices.id, sql.placeholder('deviceId')))).limit(1))
    : prepared(db, 'device_by_certificate', () => deviceSelection(db).where(byFingerprint).limit(1));
  const [row] = (await query.execute({ fingerprint, deviceId })) as CertifiedDevice[];
  return row ?? null;
}

/**
 * For a chain already known to be signed by the CA `caId` (verified-chains.ts): the device of the
 * registered certificate and whether that CA is still registered, in the same one query, so a
 * reconnecting device costs one round trip before its request runs.
 */
export async function findDeviceByCertificateUnderCa(db: Executor, fingerprint: string, caId: string): Promise<(CertifiedDevice & { caRegistered: boolean }) | null> {
  const query = prepared(db, 'device_by_certificate_under_ca', () =>
    db
      .select({
        device: DEVICE_ROW_COLUMNS,
        certificateOrganizationId: deviceCertificates.organizationId,
        caRegistered: sql<boolean>`exists (select 1 from ${caCertificates} where ${caCertificates.id} = ${sql.placeholder('caId')}::uuid)`,
      })
      .from(deviceCertificates)
      .innerJoin(devices, eq(devices.id, deviceCertificates.deviceId))
      .where(byFingerprint)
      .limit(1),
  );
  const [row] = (await query.execute({ fingerprint, caId })) as (CertifiedDevice & { caRegistered: boolean })[];
  return row ?? null;
}
