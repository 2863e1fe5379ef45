/**
 * A revoked key (an API key, an ended session, a deleted user's keys) stops working in every
 * server process at once, though each process keeps a key cache (key-cache.ts). The revoking
 * transaction sends a PostgreSQL notification, delivered when it commits; every process on
 * PostgreSQL listens on its own connection and clears its cache. While that connection is down
 * the process trusts no cached key (each request looks its key up) until it listens again.
 * PGlite serves one process, which clears its own cache.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Database } from '../db/connection';
import { afterRequestCommit } from '../db/request-scope';
import { distrustCachedKeys, forgetCachedKeys } from './key-cache';

export const KEY_REVOCATION_CHANNEL = 'canopy_api_key_revoked';
const RECONNECT_MS = { first: 200, max: 10_000 };

/** In the revoking transaction: clears this process's cache now and after the commit, and tells the others. */
export async function announceKeyRevocation(db: Database): Promise<void> {
  forgetCachedKeys(db);
  await db.execute(sql`select pg_notify(${KEY_REVOCATION_CHANNEL}, '')`);
  // A lookup between the clear and the commit still saw the key valid and may have cached it.
  afterRequestCommit(() => forgetCachedKeys(db));
}

/** Ends a client whose events no longer matter (a late 'error' must not go unheard and crash the process). */
async function retire(client: pg.Client | null): Promise<void> {
  if (!client) return;
  client.removeAllListeners();
  client.on('error', () => {});
  await client.end().catch(() => {});
}

export interface RevocationListener {
  close(): Promise<void>;
}

/** Listens for revocations on PostgreSQL until closed; resolves once it listens (or has failed once). */
export async function listenForKeyRevocations(databaseUrl: string, db: Database, log: Logger): Promise<RevocationListener> {
  let closed = false;
  let client: pg.Client | null = null;
  let delay = RECONNECT_MS.first;
  let timer: NodeJS.Timeout | null = null;

  const lost = (error?: Error) => {
    distrustCachedKeys(db, true);
    if (closed) return;
    if (error) log.warn({ err: error.message }, 'key revocation listener lost its connection; API keys are looked up on every request until it is back');
    void retire(client);
    client = null;
    timer ??= setTimeout(() => {
      timer = null;
      void connectOnce();
    }, delay);
    delay = Math.min(delay * 2, RECONNECT_MS.max);
  };

  const connectOnce = async () => {
    distrustCachedKeys(db, true);
    const next = new pg.Client({ connectionString: databaseUrl });
    client = next;
    next.on('notification', () => forgetCachedKeys(db));
    next.on('error', lost);
    next.on('end', () => client === next && lost());
    try {
      await next.connect();
      await next.query(`listen ${KEY_REVOCATION_CHANNEL}`);
      if (closed || client !== next) return;
      delay = RECONNECT_MS.first;
      distrustCachedKeys(db, false);
    } catch (error) {
      if (client === next) lost(error as Error);
    }
  };

  await connectOnce();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const last = client;
      client = null;
      await retire(last);
    },
  };
}
