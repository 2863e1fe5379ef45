/**
 * Just-in-time provisioning: an unknown device whose certificate chains to a CA with JITP
 * settings is created from them (identifier = certificate CN) and its certificate registered,
 * in one transaction, so there is never a device without its certificate or the reverse.
 */
import type { RegisteredCaRecord } from '../certificates/ca-lookup';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { insertDeviceCertificate } from '../certificates/device-certificate-service';
import { deviceCertificateFieldProblems } from '../certificates/field-limits';
import type { ParsedCertificate } from '../certificates/pem';
import type { Database } from '../db/connection';
import { createDevice } from '../devices/service';
import type { Actor } from '../http/actor';
import { ApiError } from '../http/errors';
import { resourcePrn } from '../core/prn';
import { findProductByName } from '../products/service';
import { isUniqueViolation } from '../db/errors';

export type ProvisionResult =
  | { ok: true; device: DeviceRow }
  /** `raced`: another connection of the same device provisioned it first; look it up again. */
  | { ok: false; detail: string; raced?: boolean };

class ProvisioningRefused extends Error {}

/** The CA acts for its organization: events and audit name the CA as the actor. */
function provisioningActor(ca: RegisteredCaRecord): Actor {
  return { organizationId: ca.organizationId, role: 'write', keyKind: 'current', keyId: ca.id, userId: null, prn: ca.prn };
}

export async function provisionDevice(db: Database, ca: RegisteredCaRecord, certificate: ParsedCertificate): Promise<ProvisionResult> {
  const settings = ca.jitp;
  if (!settings) return { ok: false, detail: 'jitp_disabled' };
  const [problem] = deviceCertificateFieldProblems(certificate.summary);
  if (problem) return { ok: false, detail: problem.reason };
  const actor = provisioningActor(ca);
  try {
    const device = await db.transaction(async (tx) => {
      const product = await findProductByName(tx, ca.organizationId, settings.productName);
      if (!product) throw new ProvisioningRefused('product_not_found');
      // createDevice opens a savepoint inside this transaction; its checks (archived product,
      // cohort of another product) answer ApiErrors that become the failure's detail.
      const created = await createDevice(tx as unknown as Database, actor, {
        identifier: certificate.summary.commonName!,
        product_prn: resourcePrn(ca.organizationId, 'product', product.id),
        cohort_prn: settings.cohortId ? resourcePrn(ca.organizationId, 'cohort', settings.cohortId) : null,
        description: settings.description,
        tags: settings.tags,
        target: settings.target,
      });
      await insertDeviceCertificate(tx, ca.organizationId, created.id, certificate);
      return created;
    });
    return { ok: true, device };
  } catch (error) {
    if (error instanceof ProvisioningRefused) return { ok: false, detail: error.message };
    if (error instanceof ApiError) {
      const context = error.errors[0]?.context ?? {};
      if (context.reason === 'taken') return { ok: false, detail: 'identifier_taken', raced: true };
      return { ok: false, detail: [context.field, context.reason].filter(Boolean).join('_') || error.errors[0]?.code || 'rejected' };
    }
    if (isUniqueViolation(error)) return { ok: false, detail: 'certificate_taken', raced: true };
    throw error;
  }
}
