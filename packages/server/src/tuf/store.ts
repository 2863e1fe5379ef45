/**
 * Reads and writes of an organization's TUF repository rows. One advisory lock per organization
 * serialises the writers (uploads, commits, the timestamp refresher), so versions never race.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { Metadata, MetadataKind, Root, type Targets } from '@tufjs/models';
import type { Executor } from '../db/connection';
import { tufMetadata, tufOnlineKeys } from './schema';

type Json = Record<string, unknown>;
/** The JSON object type @tufjs/models reads (not exported by its index). */
type TufJson = Parameters<typeof Root.fromJSON>[0];

export async function lockRepository(db: Executor, organizationId: string) {
  await db.execute(sql`SELECT pg_advisory_xact_lock(hashtext('tuf:' || ${organizationId}))`);
}

export async function latestBody(db: Executor, organizationId: string, role: string): Promise<{ version: number; body: Json } | null> {
  const [row] = await db
    .select({ version: tufMetadata.version, body: tufMetadata.body })
    .from(tufMetadata)
    .where(and(eq(tufMetadata.organizationId, organizationId), eq(tufMetadata.role, role)))
    .orderBy(desc(tufMetadata.version))
    .limit(1);
  return row ?? null;
}

export async function bodyAt(db: Executor, organizationId: string, role: string, version: number): Promise<Json | null> {
  const [row] = await db
    .select({ body: tufMetadata.body })
    .from(tufMetadata)
    .where(and(eq(tufMetadata.organizationId, organizationId), eq(tufMetadata.role, role), eq(tufMetadata.version, version)));
  return row?.body ?? null;
}

export async function trustedRoot(db: Executor, organizationId: string): Promise<Metadata<Root> | null> {
  const row = await latestBody(db, organizationId, 'root');
  return row ? Metadata.fromJSON(MetadataKind.Root, row.body as TufJson) : null;
}

export async function latestTargets(db: Executor, organizationId: string, role: string): Promise<Metadata<Targets> | null> {
  const row = await latestBody(db, organizationId, role);
  return row ? Metadata.fromJSON(MetadataKind.Targets, row.body as TufJson) : null;
}

export async function insertMetadata(db: Executor, organizationId: string, role: string, version: number, body: Json) {
  await db.insert(tufMetadata).values({ organizationId, role, version, body });
}

/** Old snapshots and timestamps are never served again (clients only move forward): keep a few. */
export async function pruneOnlineRole(db: Executor, organizationId: string, role: 'snapshot' | 'timestamp', latestVersion: number) {
  await db.delete(tufMetadata).where(and(eq(tufMetadata.organizationId, organizationId), eq(tufMetadata.role, role), sql`${tufMetadata.version} < ${latestVersion - 5}`));
}

export function onlineKeyRows(db: Executor, organizationId: string) {
  return db.select().from(tufOnlineKeys).where(eq(tufOnlineKeys.organizationId, organizationId)).orderBy(desc(tufOnlineKeys.insertedAt));
}
