/**
 * Device certificates: the certificates a device may authenticate with. A device may hold several
 * live ones at once, so a fleet rotates certificates without downtime: register the new one,
 * let devices switch, delete the old one.
 */
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import { getDevice } from '../devices/service';
import type { Actor } from '../http/actor';
import { invalidField, notFound, parameterError } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import { registeredCaFinder } from './ca-lookup';
import { assertNotExpired, certificateChainFromField } from './certificate-field';
import { verifyClientCertificateChain } from './chain';
import { deviceCertificateFieldProblems } from './field-limits';
import type { ParsedCertificate } from './pem';
import { deviceCertificates } from './schema';
import { verifiedChains } from './verified-chains';

export type DeviceCertificateRow = typeof deviceCertificates.$inferSelect;

export function deviceCertificateToWire(row: DeviceCertificateRow) {
  return {
    prn: resourcePrn(row.organizationId, 'device_certificate', row.id),
    organization_prn: organizationPrn(row.organizationId),
    device_prn: resourcePrn(row.organizationId, 'device', row.deviceId),
    serial: row.serial,
    fingerprint: row.fingerprint,
    authority_key_identifier: row.authorityKeyIdentifier,
    not_before: toRfc3339(row.notBefore),
    not_after: toRfc3339(row.notAfter),
    ...timestampsOf(row),
  };
}

export const FINGERPRINT_TAKEN = 'device_certificates_fingerprint_unique';

/** Inserts a parsed certificate for a device; the caller owns the transaction (admin API or JITP). */
export async function insertDeviceCertificate(tx: Executor, organizationId: string, deviceId: string, certificate: ParsedCertificate): Promise<DeviceCertificateRow> {
  const summary = certificate.summary;
  const [row] = await tx
    .insert(deviceCertificates)
    .values({
      id: randomUUID(),
      organizationId,
      deviceId,
      certificate: certificate.pem,
      serial: summary.serial,
      fingerprint: summary.fingerprintSha256,
      authorityKeyIdentifier: summary.authorityKeyIdentifier,
      notBefore: summary.notBefore.toISOString(),
      notAfter: summary.notAfter.toISOString(),
    })
    .returning();
  return row;
}

/**
 * Registers a device certificate for a device of the caller's organization. It must chain (through
 * the intermediates sent after it, if any) to a CA certificate registered by that same
 * organization: a certificate binds only to the organization owning its CA. Whether another
 * organization knows the certificate is never told: registered elsewhere answers `unknown_ca`,
 * as a certificate of a CA this organization has not registered does; only the caller's own
 * registration is `taken`.
 */
export async function createDeviceCertificate(db: Database, actor: Actor, input: { device_prn: string; certificate: string }): Promise<DeviceCertificateRow> {
  const { leaf: certificate, intermediates } = certificateChainFromField('certificate', input.certificate);
  assertNotExpired('certificate', certificate);
  const [problem] = deviceCertificateFieldProblems(certificate.summary);
  if (problem) {
    const { reason, ...detail } = problem;
    throw invalidField('certificate', reason, detail);
  }
  const chain = await verifyClientCertificateChain({
    leaf: certificate.certificate,
    intermediates: intermediates.map((intermediate) => intermediate.certificate),
    findCaCandidates: registeredCaFinder(db, actor.organizationId),
  });
  if (!chain.ok) throw invalidField('certificate', chain.reason, chain.position ? { position: chain.position } : {});
  try {
    return await db.transaction(async (tx) => {
      const device = await getDevice(tx, actor, input.device_prn, 'device_prn');
      return insertDeviceCertificate(tx, actor.organizationId, device.id, certificate);
    });
  } catch (error) {
    if (!isUniqueViolation(error, FINGERPRINT_TAKEN)) throw error;
    const ours = await registeredInOrganization(db, actor.organizationId, certificate.summary.fingerprintSha256);
    throw invalidField('certificate', ours ? 'taken' : 'unknown_ca');
  }
}

async function registeredInOrganization(db: Executor, organizationId: string, fingerprint: string): Promise<boolean> {
  const [row] = await db
    .select({ id: deviceCertificates.id })
    .from(deviceCertificates)
    .where(and(eq(deviceCertificates.fingerprint, fingerprint), eq(deviceCertificates.organizationId, organizationId)))
    .limit(1);
  return row !== undefined;
}

export async function getDeviceCertificate(db: Executor, actor: Actor, prn: string): Promise<DeviceCertificateRow> {
  const id = resourceIdFromPrn(prn, 'device_certificate', actor.organizationId);
  const [row] = id
    ? await db
        .select()
        .from(deviceCertificates)
        .where(and(eq(deviceCertificates.id, id), eq(deviceCertificates.organizationId, actor.organizationId)))
        .limit(1)
    : [];
  if (!row) throw notFound('device_certificate', prn);
  return row;
}

export async function listDeviceCertificates(db: Executor, actor: Actor, query: ListQuery & { device_prn?: string }) {
  const page = pageRequest(query);
  let deviceId: string | undefined;
  if (query.device_prn !== undefined) {
    // A malformed prn, or one of another organization, is a 400 naming the parameter.
    deviceId = resourceIdFromPrn(query.device_prn, 'device', actor.organizationId) ?? undefined;
    if (deviceId === undefined) throw parameterError('device_prn', 'not_found');
  }
  const { where, orderBy } = keyset(deviceCertificates, page);
  const rows = await db
    .select()
    .from(deviceCertificates)
    .where(combine(eq(deviceCertificates.organizationId, actor.organizationId), where, deviceId ? eq(deviceCertificates.deviceId, deviceId) : undefined))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

/** The certificate stops authenticating at once (the device API checks per connection). */
export async function deleteDeviceCertificate(db: Executor, actor: Actor, prn: string): Promise<void> {
  const row = await getDeviceCertificate(db, actor, prn);
  await db.delete(deviceCertificates).where(eq(deviceCertificates.id, row.id));
  verifiedChains.forgetLeaf(row.fingerprint);
}
