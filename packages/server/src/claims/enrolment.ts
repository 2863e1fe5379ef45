/**
 * A device enrols itself with a claim token (POST /device/claim on the device API): it presents a
 * self-signed certificate for a fresh P-256 key as its TLS client certificate (the handshake
 * proves it holds the key) and sends the token and its identifier. A new identifier becomes a
 * device of the token's product, cohort and tags, with a certificate for that key signed by the
 * organization's claims CA. A known identifier with a key none of its certificates holds is
 * never accepted silently: it becomes a pending reclaim an admin approves (decision 004).
 */
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { peerCertificates } from '../certificates/tls-peer';
import { and, eq, sql } from 'drizzle-orm';
import { deviceCertificates } from '../certificates/schema';
import { insertDeviceCertificate } from '../certificates/device-certificate-service';
import { resourcePrn } from '../core/prn';
import type { SecretBox } from '../crypto/secret-box';
import type { Database, Executor } from '../db/connection';
import { createDevice } from '../devices/service';
import { devices } from '../devices/schema';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { ApiError } from '../http/errors';
import { claimAuthorityOf, issueDeviceCertificate } from './authority';
import { claimTokens, deviceReclaims } from './schema';
import { hashClaimSecret, secretMatches, tokenState } from './token-rules';

export type ClaimOutcome =
  | { status: 'enrolled'; devicePrn: string; certificatePem: string; caCertificatePem: string; created: boolean }
  | { status: 'reclaim_pending'; devicePrn: string; reclaimPrn: string };

/** Why a claim was refused; every one counts as a failure of the address. */
export class ClaimRefused extends ApiError {}

const refused = (status: number, code: string, context: Record<string, unknown> = {}) => new ClaimRefused(status, [{ code, context }]);

/** The presented key as SPKI DER, when it is a self-signed, current P-256 certificate. */
export function claimedKey(leaf: X509Certificate | undefined, now = new Date()): Buffer {
  if (!leaf) throw refused(401, 'client_certificate_required');
  const current = new Date(leaf.validFrom) <= now && now <= new Date(leaf.validTo);
  if (!current || leaf.subject !== leaf.issuer || !leaf.verify(leaf.publicKey)) throw refused(422, 'validation', { field: 'client_certificate', reason: 'not_self_signed_or_expired' });
  if (leaf.publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw refused(422, 'validation', { field: 'client_certificate', reason: 'key_not_p256' });
  return leaf.publicKey.export({ type: 'spki', format: 'der' });
}

const fingerprintOf = (spki: Buffer) => createHash('sha256').update(spki).digest('hex');

async function certificateForKey(tx: Executor, deviceId: string, spkiFingerprint: string): Promise<string | null> {
  const rows = await tx.select({ certificate: deviceCertificates.certificate }).from(deviceCertificates).where(eq(deviceCertificates.deviceId, deviceId));
  for (const row of rows) {
    const spki = new X509Certificate(row.certificate).publicKey.export({ type: 'spki', format: 'der' });
    if (fingerprintOf(spki) === spkiFingerprint) return row.certificate;
  }
  return null;
}

export async function claimDevice(db: Database, secrets: SecretBox, input: { token: string; identifier: string; spki: Buffer }): Promise<ClaimOutcome> {
  return db.transaction(async (tx) => {
    const [token] = await tx.select().from(claimTokens).where(eq(claimTokens.secretHash, hashClaimSecret(input.token))).for('update');
    if (!token || !secretMatches(input.token, token.secretHash)) throw refused(401, 'invalid_claim_token');
    const state = tokenState(token, new Date());
    const organizationId = token.organizationId;
    const [known] = await tx.select().from(devices).where(and(eq(devices.organizationId, organizationId), eq(devices.identifier, input.identifier)));
    // A known device spends no use (its reclaim waits for an admin), so a used-up token still
    // lets it ask for one and fetch the approved certificate; revoked or expired ones do not.
    if (state !== 'active' && !(state === 'used_up' && known)) throw refused(403, `claim_token_${state}`);
    const tokenPrn = resourcePrn(organizationId, 'claim_token', token.id);
    const fingerprint = fingerprintOf(input.spki);
    const authority = await claimAuthorityOf(tx, secrets, organizationId);

    if (known) {
      const devicePrn = resourcePrn(organizationId, 'device', known.id);
      const certificatePem = await certificateForKey(tx, known.id, fingerprint);
      if (certificatePem) return { status: 'enrolled', devicePrn, certificatePem, caCertificatePem: authority.certificatePem, created: false };
      const [pending] = await tx
        .insert(deviceReclaims)
        .values({ id: randomUUID(), organizationId, deviceId: known.id, claimTokenId: token.id, publicKeyPem: spkiPem(input.spki), publicKeyFingerprint: fingerprint })
        .onConflictDoNothing()
        .returning();
      const [reclaim] = pending ? [pending] : await tx.select().from(deviceReclaims).where(and(eq(deviceReclaims.deviceId, known.id), eq(deviceReclaims.publicKeyFingerprint, fingerprint)));
      const reclaimPrn = resourcePrn(organizationId, 'device_reclaim', reclaim.id);
      if (reclaim.state === 'rejected') throw refused(403, 'reclaim_rejected');
      if (pending) {
        await recordEvent(tx, { organizationId, type: 'device', subtype: 'reclaim_requested', actorPrn: tokenPrn, resourcePrn: devicePrn, data: { device: devicePrn, device_reclaim: reclaimPrn, claim_token: tokenPrn, public_key_fingerprint: fingerprint } });
      }
      return { status: 'reclaim_pending', devicePrn, reclaimPrn };
    }

    const actor: Actor = { organizationId, role: 'write', keyKind: 'current', keyId: token.id, userId: null, prn: tokenPrn };
    const device = await createDevice(tx as unknown as Database, actor, {
      identifier: input.identifier,
      product_prn: resourcePrn(organizationId, 'product', token.productId),
      cohort_prn: token.cohortId ? resourcePrn(organizationId, 'cohort', token.cohortId) : null,
      tags: token.tags ?? null,
    });
    const certificate = await issueDeviceCertificate(authority, input.spki, input.identifier);
    await insertDeviceCertificate(tx, organizationId, device.id, certificate);
    await tx.update(claimTokens).set({ uses: sql`${claimTokens.uses} + 1`, updatedAt: sql`now()` }).where(eq(claimTokens.id, token.id));
    const devicePrn = resourcePrn(organizationId, 'device', device.id);
    await recordEvent(tx, { organizationId, type: 'claim_token', subtype: 'used', actorPrn: tokenPrn, resourcePrn: tokenPrn, data: { claim_token: tokenPrn, device: devicePrn, identifier: input.identifier } });
    return { status: 'enrolled', devicePrn, certificatePem: certificate.pem, caCertificatePem: authority.certificatePem, created: true };
  });
}

function spkiPem(spki: Buffer): string {
  return `-----BEGIN PUBLIC KEY-----\n${spki.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END PUBLIC KEY-----\n`;
}

/** The claim of the device on `socket`: its client certificate's key, the body's token and identifier. */
export function claimFromSocket(db: Database, secrets: SecretBox, socket: TLSSocket, body: { token: string; identifier: string }): Promise<ClaimOutcome> {
  return claimDevice(db, secrets, { token: body.token, identifier: body.identifier, spki: claimedKey(peerCertificates(socket).leaf) });
}
