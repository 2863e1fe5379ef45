/**
 * The legacy organization-scoped CA certificates (by serial), devices (by identifier) and device
 * certificates (by serial), over the current API's services, so every rule of the current paths
 * (proof of possession, expiry, uniqueness, archived products) holds here too. org-routes.ts is
 * the HTTP side.
 */
import { and, desc, eq } from 'drizzle-orm';
import { caCertificates, deviceCertificates } from '../certificates/schema';
import { caCertificateToWire, deleteCaCertificate, registerCaCertificate } from '../certificates/ca-service';
import { createDeviceCertificate, deleteDeviceCertificate, deviceCertificateToWire } from '../certificates/device-certificate-service';
import { resourcePrn } from '../core/prn';
import type { Database, Executor } from '../db/connection';
import { devices, type DeviceRow } from '../devices/schema';
import { createDevice, deleteDevice, updateDevice } from '../devices/service';
import type { Actor } from '../http/actor';
import { notFound } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { legacyDevicesToWire } from './legacy-device';

export interface LegacyDeviceInput {
  identifier?: string;
  description?: string | null;
  tags?: string[] | null;
  target?: string | null;
  healthy?: boolean;
}

/** A PEM certificate as sent (`cert`), or base64 of one; the services take base64 of PEM. */
const base64Pem = (value: string) => (value.trimStart().startsWith('-----BEGIN') ? Buffer.from(value).toString('base64') : value);

/** `healthy` is the public API's name for "not quarantined" (legacy-device.ts). */
const quarantinedOf = (healthy: boolean | undefined) => (healthy === undefined ? undefined : !healthy);

export async function deviceNamed(db: Executor, actor: Actor, productId: string, identifier: string): Promise<DeviceRow> {
  const [row] = await db
    .select()
    .from(devices)
    .where(and(eq(devices.organizationId, actor.organizationId), eq(devices.productId, productId), eq(devices.identifier, identifier)))
    .limit(1);
  if (!row) throw notFound('device');
  return row as DeviceRow;
}

async function caBySerial(db: Executor, actor: Actor, serial: string) {
  // Serials are unique per issuer, not per organization: the newest CA with this serial answers.
  const [row] = await db
    .select()
    .from(caCertificates)
    .where(and(eq(caCertificates.organizationId, actor.organizationId), eq(caCertificates.serial, serial)))
    .orderBy(desc(caCertificates.insertedAt))
    .limit(1);
  if (!row) throw notFound('ca_certificate');
  return row;
}

async function deviceCertificateBySerial(db: Executor, actor: Actor, deviceId: string, serial: string) {
  const [row] = await db
    .select()
    .from(deviceCertificates)
    .where(and(eq(deviceCertificates.organizationId, actor.organizationId), eq(deviceCertificates.deviceId, deviceId), eq(deviceCertificates.serial, serial)))
    .orderBy(desc(deviceCertificates.insertedAt))
    .limit(1);
  if (!row) throw notFound('device_certificate');
  return row;
}

export async function listCas(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(caCertificates, page);
  const rows = await db.select().from(caCertificates).where(combine(eq(caCertificates.organizationId, actor.organizationId), where)).orderBy(...orderBy).limit(page.limit + 1);
  const paged = toPage(rows, page);
  return { data: paged.items.map(caCertificateToWire), next_page: paged.nextPage };
}

export async function registerCa(db: Database, actor: Actor, body: { cert: string; verification_cert: string; description?: string | null }) {
  const row = await registerCaCertificate(db, actor, { certificate: base64Pem(body.cert), verification_certificate: base64Pem(body.verification_cert), description: body.description ?? null });
  return caCertificateToWire(row);
}

export async function caWire(db: Executor, actor: Actor, serial: string) {
  return caCertificateToWire(await caBySerial(db, actor, serial));
}

export async function deleteCa(db: Executor, actor: Actor, serial: string) {
  const row = await caBySerial(db, actor, serial);
  await deleteCaCertificate(db, actor, resourcePrn(actor.organizationId, 'ca_certificate', row.id));
}

export async function listProductDevices(db: Executor, actor: Actor, productId: string, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(devices, page);
  const rows = (await db
    .select()
    .from(devices)
    .where(combine(eq(devices.organizationId, actor.organizationId), eq(devices.productId, productId), where))
    .orderBy(...orderBy)
    .limit(page.limit + 1)) as DeviceRow[];
  const paged = toPage(rows, page);
  return { data: await legacyDevicesToWire(db, paged.items), next_page: paged.nextPage };
}

export async function createLegacyDevice(db: Database, actor: Actor, productId: string, input: LegacyDeviceInput & { identifier: string }) {
  const { identifier, description, tags, target, healthy } = input;
  const row = await createDevice(db, actor, { identifier, description, tags, target, quarantined: quarantinedOf(healthy), product_prn: resourcePrn(actor.organizationId, 'product', productId) });
  return (await legacyDevicesToWire(db, [row as DeviceRow]))[0];
}

export async function legacyDevice(db: Executor, actor: Actor, productId: string, identifier: string) {
  return (await legacyDevicesToWire(db, [await deviceNamed(db, actor, productId, identifier)]))[0];
}

export async function updateLegacyDevice(db: Database, actor: Actor, productId: string, current: string, input: LegacyDeviceInput) {
  const device = await deviceNamed(db, actor, productId, current);
  const { identifier, description, tags, target, healthy } = input;
  const row = await updateDevice(db, actor, resourcePrn(actor.organizationId, 'device', device.id), { identifier, description, tags, target, quarantined: quarantinedOf(healthy) });
  return (await legacyDevicesToWire(db, [row as DeviceRow]))[0];
}

export async function deleteLegacyDevice(db: Executor, actor: Actor, productId: string, identifier: string) {
  const device = await deviceNamed(db, actor, productId, identifier);
  await deleteDevice(db, actor, resourcePrn(actor.organizationId, 'device', device.id));
}

export async function listDeviceCertificates(db: Executor, actor: Actor, productId: string, identifier: string) {
  const device = await deviceNamed(db, actor, productId, identifier);
  const rows = await db.select().from(deviceCertificates).where(eq(deviceCertificates.deviceId, device.id)).orderBy(desc(deviceCertificates.insertedAt)).limit(100);
  return rows.map(deviceCertificateToWire);
}

export async function addDeviceCertificate(db: Database, actor: Actor, productId: string, identifier: string, cert: string) {
  const device = await deviceNamed(db, actor, productId, identifier);
  const row = await createDeviceCertificate(db, actor, { device_prn: resourcePrn(actor.organizationId, 'device', device.id), certificate: base64Pem(cert) });
  return deviceCertificateToWire(row);
}

export async function deviceCertificateWire(db: Executor, actor: Actor, productId: string, identifier: string, serial: string) {
  const device = await deviceNamed(db, actor, productId, identifier);
  return deviceCertificateToWire(await deviceCertificateBySerial(db, actor, device.id, serial));
}

export async function deleteDeviceCertificateBySerial(db: Executor, actor: Actor, productId: string, identifier: string, serial: string) {
  const device = await deviceNamed(db, actor, productId, identifier);
  const row = await deviceCertificateBySerial(db, actor, device.id, serial);
  await deleteDeviceCertificate(db, actor, resourcePrn(actor.organizationId, 'device_certificate', row.id));
}
