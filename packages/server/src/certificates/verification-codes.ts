/**
 * CA verification codes: a registrant asks for one, signs a certificate with CN = code using the
 * CA's key, and sends it with the CA. Codes live one week and are consumed by the registration
 * that uses them, so a captured verification certificate cannot register the CA a second time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { caVerificationCodes } from './schema';

export const VERIFICATION_CODE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export async function createVerificationCode(db: Executor, organizationId: string): Promise<string> {
  // 32 upper-case hex characters: fits a CN (max 64) and survives any tool's quoting.
  const code = randomBytes(16).toString('hex').toUpperCase();
  await db.insert(caVerificationCodes).values({
    id: randomUUID(),
    organizationId,
    code,
    expiresAt: new Date(Date.now() + VERIFICATION_CODE_LIFETIME_MS).toISOString(),
  });
  return code;
}

/** The organization's live, unused codes, locked until the transaction ends. */
export async function liveVerificationCodes(tx: Executor, organizationId: string): Promise<string[]> {
  const rows = await tx
    .select({ code: caVerificationCodes.code })
    .from(caVerificationCodes)
    .where(and(eq(caVerificationCodes.organizationId, organizationId), isNull(caVerificationCodes.usedAt), gt(caVerificationCodes.expiresAt, sql`now()`)))
    .for('update');
  return rows.map((row) => row.code);
}

/** Marks a code used; false when a concurrent registration consumed it first. */
export async function consumeVerificationCode(tx: Executor, organizationId: string, code: string): Promise<boolean> {
  const used = await tx
    .update(caVerificationCodes)
    .set({ usedAt: sql`now()` })
    .where(and(eq(caVerificationCodes.organizationId, organizationId), eq(caVerificationCodes.code, code), isNull(caVerificationCodes.usedAt)))
    .returning({ id: caVerificationCodes.id });
  return used.length === 1;
}
