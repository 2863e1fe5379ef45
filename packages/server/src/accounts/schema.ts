import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull().unique(),
  insertedAt: insertedAt(),
  updatedAt: updatedAt(),
});

export const ROLES = ['read', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const users = pgTable(
  'users',
  {
    id: id(),
    organizationId: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email'),
    username: text('username'),
    /** scrypt: `scrypt$N$r$p$salt$hash` (base64 parts). */
    passwordHash: text('password_hash').notNull(),
    role: text('role').$type<Role>().notNull(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(sql`lower(${t.email})`),
    uniqueIndex('users_username_unique').on(t.username),
  ],
);

export const API_KEY_KINDS = ['legacy', 'current'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    organizationId: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    /** Set for keys minted by POST /users/auth: they act as that user. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind').$type<ApiKeyKind>().notNull(),
    role: text('role').$type<Role>().notNull(),
    /** SHA-256 of the whole key (hex). Keys carry 256 random bits, so a fast hash is enough. */
    tokenHash: text('token_hash').notNull(),
    /** The first characters of the key, shown in lists so people can tell keys apart. */
    tokenPrefix: text('token_prefix').notNull(),
    isSession: boolean('is_session').notNull().default(false),
    /** A session's idle expiry, pushed on by its use (accounts/sessions.ts); null for plain keys. */
    expiresAt: timestamptz('expires_at'),
    /** A session ends here whatever its use (CANOPY_SESSION_MAX_LIFETIME_SECONDS after log-in). */
    sessionEndsAt: timestamptz('session_ends_at'),
    /** When a session was last seen in use, written at most once per renewal interval. */
    lastUsedAt: timestamptz('last_used_at'),
    /** The User-Agent that logged the session in, cut to 256 characters, to tell sessions apart. */
    userAgent: text('user_agent'),
    revokedAt: timestamptz('revoked_at'),
    insertedAt: insertedAt(),
  },
  (t) => [
    uniqueIndex('api_keys_token_hash_unique').on(t.tokenHash),
    index('api_keys_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('api_keys_user_sessions').on(t.userId, t.insertedAt, t.id).where(sql`${t.isSession}`),
  ],
);
