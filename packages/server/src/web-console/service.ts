/**
 * Web console shells: a one-time URL that opens a console session on a device. The URL carries a
 * random token; only its SHA-256 is stored. Using the URL consumes it in one conditional UPDATE,
 * so of any number of concurrent uses exactly one wins, and none after expires_at.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { getDevice, type DeviceRow } from '../devices/service';
import type { Actor } from '../http/actor';
import { ApiError, invalidField, notFound } from '../http/errors';
import { hashToken } from '../http/auth';
import { parsePrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { devices } from '../devices/schema';
import { webConsoleShells } from './schema';

export const DEFAULT_SHELL_TTL = 3600;

/** The path the URL points at on the admin API's public base URL. */
export const SHELL_URL_PATH = '/web-console/shells';

export type ShellRow = typeof webConsoleShells.$inferSelect;

export interface NewShell {
  device_prn?: string | null;
  device_identifier?: string | null;
  organization_prn?: string | null;
  ttl?: number;
}

/** device_prn, or device_identifier + organization_prn (which must be the caller's own). */
async function shellDevice(db: Executor, actor: Actor, input: NewShell): Promise<DeviceRow> {
  if (input.device_prn) return getDevice(db, actor, input.device_prn, 'device_prn');
  if (!input.device_identifier) throw invalidField('device_prn', 'required', { alternative: ['device_identifier', 'organization_prn'] });
  if (!input.organization_prn) throw invalidField('organization_prn', 'required');
  const org = parsePrn(input.organization_prn);
  if (!org || org.kind !== 'organization' || org.organizationId !== actor.organizationId) throw invalidField('organization_prn', 'not_found');
  const [row] = await db
    .select()
    .from(devices)
    .where(and(eq(devices.organizationId, actor.organizationId), eq(devices.identifier, input.device_identifier)))
    .limit(1);
  if (!row) throw invalidField('device_identifier', 'not_found');
  return row;
}

export async function createShell(db: Database, actor: Actor, publicUrl: string, input: NewShell) {
  const device = await shellDevice(db, actor, input);
  const token = randomBytes(32).toString('base64url');
  const [row] = await db
    .insert(webConsoleShells)
    .values({
      id: randomUUID(),
      organizationId: actor.organizationId,
      deviceId: device.id,
      tokenHash: hashToken(token),
      expiresAt: sql`now() + make_interval(secs => ${input.ttl ?? DEFAULT_SHELL_TTL})`,
      createdByPrn: actor.prn,
    })
    .returning();
  return { row, url: `${publicUrl}${SHELL_URL_PATH}/${token}` };
}

export function shellToWire(row: ShellRow, url: string) {
  return {
    prn: resourcePrn(row.organizationId, 'web_console_shell', row.id),
    device_prn: resourcePrn(row.organizationId, 'device', row.deviceId),
    url,
    expires_at: toRfc3339(row.expiresAt),
    inserted_at: toRfc3339(row.insertedAt),
  };
}

/** Consumes the URL's token: the shell on the first use before expiry; 404 or 410 ever after. */
export async function consumeShell(db: Executor, token: string): Promise<ShellRow> {
  const tokenHash = hashToken(token);
  const [won] = await db
    .update(webConsoleShells)
    .set({ consumedAt: sql`now()` })
    .where(and(eq(webConsoleShells.tokenHash, tokenHash), isNull(webConsoleShells.consumedAt), gt(webConsoleShells.expiresAt, sql`now()`)))
    .returning();
  if (won) return won;
  // Only to say why: the decision above is already made and final.
  const [lost] = await db.select().from(webConsoleShells).where(eq(webConsoleShells.tokenHash, tokenHash)).limit(1);
  if (!lost) throw notFound('web_console_shell');
  throw new ApiError(410, [{ code: lost.consumedAt ? 'web_console_shell_used' : 'web_console_shell_expired', context: { expires_at: toRfc3339(lost.expiresAt) } }]);
}
