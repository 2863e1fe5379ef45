/**
 * Pending reclaims: a known identifier claimed with a new key (enrolment.ts). Approving issues
 * the certificate for the new key and registers it (the device's next claim with that key is
 * answered with it); rejecting refuses that key for good. Old certificates stay until deleted.
 */
import { eq, sql } from 'drizzle-orm';
import { createPublicKey } from 'node:crypto';
import { insertDeviceCertificate } from '../certificates/device-certificate-service';
import { organizationPrn, resourcePrn } from '../core/prn';
import type { SecretBox } from '../crypto/secret-box';
import type { Database, Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { conflict } from '../http/errors';
import type { ListQuery } from '../http/pagination';
import { timestampsOf } from '../http/wire-fields';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import { claimAuthorityOf, issueDeviceCertificate } from './authority';
import { deviceReclaims } from './schema';

export type ReclaimRow = typeof deviceReclaims.$inferSelect;

export function reclaimToWire(row: ReclaimRow) {
  return {
    prn: resourcePrn(row.organizationId, 'device_reclaim', row.id),
    organization_prn: organizationPrn(row.organizationId),
    device_prn: resourcePrn(row.organizationId, 'device', row.deviceId),
    claim_token_prn: row.claimTokenId ? resourcePrn(row.organizationId, 'claim_token', row.claimTokenId) : null,
    public_key: row.publicKeyPem,
    public_key_fingerprint: row.publicKeyFingerprint,
    state: row.state,
    ...timestampsOf(row),
  };
}

export function listReclaims(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, deviceReclaims, actor.organizationId, query, {
    state: { column: deviceReclaims.state, type: 'string', operators: [':'] },
    inserted_at: { column: deviceReclaims.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  });
}

export function getReclaim(db: Executor, actor: Actor, prn: string): Promise<ReclaimRow> {
  return requireOwnedRow(db, deviceReclaims, 'device_reclaim', actor.organizationId, prn);
}

export async function decideReclaim(db: Database, secrets: SecretBox, actor: Actor, prn: string, decision: 'approved' | 'rejected'): Promise<ReclaimRow> {
  return db.transaction(async (tx) => {
    const found = await getReclaim(tx, actor, prn);
    const [current] = await tx.select().from(deviceReclaims).where(eq(deviceReclaims.id, found.id)).for('update');
    if (current.state !== 'pending') throw conflict('invalid_state_transition', { current_state: current.state, required_state: 'pending' });
    let certificatePem: string | null = null;
    if (decision === 'approved') {
      const [device] = await tx.select().from(devices).where(eq(devices.id, current.deviceId));
      const authority = await claimAuthorityOf(tx, secrets, actor.organizationId);
      const spki = createPublicKey(current.publicKeyPem).export({ type: 'spki', format: 'der' });
      const certificate = await issueDeviceCertificate(authority, spki, device.identifier);
      await insertDeviceCertificate(tx, actor.organizationId, device.id, certificate);
      certificatePem = certificate.pem;
    }
    const [row] = await tx.update(deviceReclaims).set({ state: decision, certificatePem, updatedAt: sql`now()` }).where(eq(deviceReclaims.id, current.id)).returning();
    const devicePrn = resourcePrn(actor.organizationId, 'device', row.deviceId);
    await recordEvent(tx, {
      organizationId: actor.organizationId,
      type: 'device',
      subtype: decision === 'approved' ? 'reclaim_approved' : 'reclaim_rejected',
      actorPrn: actor.prn,
      resourcePrn: devicePrn,
      data: { device: devicePrn, device_reclaim: resourcePrn(actor.organizationId, 'device_reclaim', row.id) },
    });
    return row;
  });
}
