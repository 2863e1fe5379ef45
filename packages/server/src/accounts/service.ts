/**
 * Organizations, users and the first start: the use cases of the accounts context.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import type { Actor, Role } from '../http/actor';
import { conflict, invalidField, notFound } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { organizationPrn, parsePrn, resourceIdFromPrn, userPrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import { apiKeys, organizations, users } from './schema';
import { apiKeyToWire, createApiKey } from './api-keys';
import { announceKeyRevocation } from './key-revocations';
import { burnPasswordCheck, hashPassword, needsRehash, verifyPassword } from './passwords';
import { newSessionExpiries, type SessionPolicy } from './sessions';

export type UserRow = typeof users.$inferSelect;
export type OrganizationRow = typeof organizations.$inferSelect;

export function userToWire(row: UserRow) {
  return {
    prn: userPrn(row.id),
    organization_prn: organizationPrn(row.organizationId),
    email: row.email,
    username: row.username,
    role: row.role,
    ...timestampsOf(row),
  };
}

export interface NewOrganization {
  name: string;
  /** A fixed key value (CANOPY_BOOTSTRAP_API_KEY) for the admin key; otherwise generated. */
  adminKey?: string;
  adminUser?: { email?: string | null; username?: string | null; password: string };
}

/** An organization with its first admin API key (and an admin user when one is given). */
export async function createOrganization(db: Database, input: NewOrganization) {
  try {
    return await db.transaction((tx) => insertOrganization(tx, input));
  } catch (error) {
    throw userTaken(error) ?? (isUniqueViolation(error) ? conflict('already_exists', { resource: 'organization', name: input.name }) : error);
  }
}

/**
 * The one way an organization is made (admin CLI and first start alike). Its first key belongs to
 * the admin user when there is one, so `GET /users/me` names the user (as the public API does for
 * every key) and events the key causes carry the user's prn as actor_prn.
 */
async function insertOrganization(tx: Executor, input: NewOrganization) {
  const [organization] = await tx.insert(organizations).values({ id: randomUUID(), name: input.name }).returning();
  let user: UserRow | null = null;
  if (input.adminUser) {
    [user] = await tx
      .insert(users)
      .values({
        id: randomUUID(),
        organizationId: organization.id,
        email: input.adminUser.email ?? null,
        username: input.adminUser.username ?? null,
        passwordHash: await hashPassword(input.adminUser.password),
        role: 'admin',
      })
      .returning();
  }
  const key = await createApiKey(tx, {
    organizationId: organization.id,
    name: 'initial admin key',
    kind: 'current',
    role: 'admin',
    token: input.adminKey,
    userId: user?.id,
    actorPrn: null,
  });
  return { organization, user, apiKey: key.token };
}

/**
 * Emails and usernames are unique across the server: log-in names no organization. So a taken one
 * answers `taken` whichever organization has it, and only that: never which one, nor the user.
 */
function userTaken(error: unknown) {
  if (isUniqueViolation(error, 'users_email_unique')) return invalidField('email', 'taken');
  if (isUniqueViolation(error, 'users_username_unique')) return invalidField('username', 'taken');
  return null;
}

export interface BootstrapResult {
  organization: OrganizationRow;
  apiKey: string;
  username: string;
  password: string;
}

/** The first start's admin user (README.md, "Quick start"); the email is a placeholder to change. */
export const BOOTSTRAP_ADMIN_USERNAME = 'admin';
export const BOOTSTRAP_ADMIN_EMAIL = 'admin@localhost';

/** On the first start with an empty database: an organization, an admin user and an admin key. */
export async function bootstrapIfEmpty(db: Database, fixedKey: string | null): Promise<BootstrapResult | null> {
  // Several processes may start against one empty PostgreSQL; only the first creates the org.
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(724431002)`);
    const [{ n }] = await tx.select({ n: count() }).from(organizations);
    if (n > 0) return null;
    const password = randomBytes(18).toString('base64url');
    const { organization, apiKey } = await insertOrganization(tx, {
      name: 'default',
      adminKey: fixedKey ?? undefined,
      adminUser: { username: BOOTSTRAP_ADMIN_USERNAME, email: BOOTSTRAP_ADMIN_EMAIL, password },
    });
    return { organization, apiKey, username: BOOTSTRAP_ADMIN_USERNAME, password };
  });
}

export interface NewUser {
  email?: string | null;
  username?: string | null;
  password: string;
  role?: Role;
}

export async function createUser(db: Executor, actor: Actor, input: NewUser): Promise<UserRow> {
  if (!input.email && !input.username) throw invalidField('email', 'required', { alternative: 'username' });
  try {
    const [row] = await db
      .insert(users)
      .values({
        id: randomUUID(),
        organizationId: actor.organizationId,
        email: input.email ?? null,
        username: input.username ?? null,
        passwordHash: await hashPassword(input.password),
        role: input.role ?? 'read',
      })
      .returning();
    return row;
  } catch (error) {
    throw userTaken(error) ?? error;
  }
}

export async function listUsers(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(users, page);
  const rows = await db
    .select()
    .from(users)
    .where(combine(eq(users.organizationId, actor.organizationId), where))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

export async function getUser(db: Executor, actor: Actor, prn: string): Promise<UserRow> {
  const parsed = parsePrn(prn);
  const id = parsed?.kind === 'user' ? parsed.id : null;
  const [row] = id ? await db.select().from(users).where(eq(users.id, id)).limit(1) : [];
  if (!row || row.organizationId !== actor.organizationId) throw notFound('user', prn);
  return row;
}

export async function deleteUser(db: Database, actor: Actor, prn: string): Promise<void> {
  const user = await getUser(db, actor, prn);
  if (user.id === actor.userId) throw conflict('cannot_delete_self', { prn });
  await db.delete(users).where(eq(users.id, user.id));
  await announceKeyRevocation(db);
}

export interface LoginCredentials {
  email?: string;
  username?: string;
  password: string;
}

/** The user an email (any case) or username names, or null. */
export async function findLoginUser(db: Database, login: LoginCredentials): Promise<UserRow | null> {
  const condition = login.email ? sql`lower(${users.email}) = lower(${login.email})` : eq(users.username, login.username ?? '');
  const [user] = await db.select().from(users).where(condition).limit(1);
  return user ?? null;
}

/** Whether the password is the user's; with no user, as long as a real check and false. */
export async function passwordMatches(user: UserRow | null, password: string): Promise<boolean> {
  if (!user) {
    await burnPasswordCheck(password);
    return false;
  }
  return verifyPassword(password, user.passwordHash);
}

/** POST /users/auth, once the password matched: a session key acting as the user (sessions.ts). */
export async function openSession(db: Database, user: UserRow, password: string, policy: SessionPolicy, userAgent: string | null) {
  // A hash made with older (weaker) parameters is rewritten now that the password is known.
  if (needsRehash(user.passwordHash)) await db.update(users).set({ passwordHash: await hashPassword(password) }).where(eq(users.id, user.id));
  const { token, row } = await createApiKey(db, {
    organizationId: user.organizationId,
    name: 'session',
    kind: 'current',
    role: user.role,
    userId: user.id,
    session: { ...newSessionExpiries(policy), userAgent: userAgent?.slice(0, 256) || null },
    actorPrn: userPrn(user.id),
  });
  return { token, expiresAt: toRfc3339(row.expiresAt), user };
}

export async function listApiKeys(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(apiKeys, page);
  const rows = await db
    .select()
    .from(apiKeys)
    .where(combine(eq(apiKeys.organizationId, actor.organizationId), eq(apiKeys.isSession, false), where))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

export async function revokeApiKey(db: Database, actor: Actor, prn: string): Promise<void> {
  const id = resourceIdFromPrn(prn, 'api_key', actor.organizationId);
  const [row] = id
    ? await db
        .update(apiKeys)
        .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
        .where(combine(eq(apiKeys.id, id), eq(apiKeys.organizationId, actor.organizationId)))
        .returning()
    : [];
  if (!row) throw notFound('api_key', prn);
  await announceKeyRevocation(db);
}

export { apiKeyToWire };
