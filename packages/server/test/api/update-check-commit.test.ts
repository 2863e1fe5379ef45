/**
 * How an update check's group statement commits (updates/check-writes.ts): a group that only
 * records events commits without waiting for its WAL flush; one that changes state (the reported
 * state, last_connected_at, a claim), and any write inside a caller's transaction, waits for it.
 *
 * `synchronous_commit` as the statement set it is seen from inside the transaction it ran in: the
 * test opens a transaction on a database handle of ONE session (the in-memory PGlite is one; on
 * PostgreSQL a pool of one connection), lets writeCheck's grouped statement run in it, reads the
 * setting, and rolls back. The statement is the one an autocommit group runs.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Database } from '../../src/db/connection';
import type { NewEvent } from '../../src/events/service';
import { writeCheck, type CheckWrite } from '../../src/updates/check-writes';
import { createDevice, createProduct } from '../support/device-fleet';
import { startTestServer, type TestServer } from '../support/server';
import { checkedForReleaseData, connectedData } from '../support/event-data';

let t: TestServer;
/** A handle whose every statement runs on one session, and how to run plain SQL on it. */
let oneSession: { db: Database; query(text: string): Promise<unknown[]>; close(): Promise<void> };
let deviceId: string;
let devicePrn: string;

beforeAll(async () => {
  // No background workers: their statements would run inside the test's open transaction.
  t = await startTestServer({}, { workers: false });
  devicePrn = (await createDevice(t.api, await createProduct(t.api, 'commit-modes'), 'commit-modes-1')).prn;
  deviceId = devicePrn.split(':')[4];
  // PostgreSQL: the platform's own connect(), with a pool of one. PGlite: the server's database.
  const handle = t.config.databaseUrl ? await connect({ databaseUrl: t.config.databaseUrl, pgliteDir: null, poolSize: 1 }) : null;
  const db = handle?.db ?? t.server.platform.db;
  // Both drivers (a node-postgres pool, PGlite) answer `query(text)` with `{ rows }`.
  const client = (db as unknown as { $client: { query(text: string): Promise<{ rows: unknown[] }> } }).$client;
  oneSession = { db, query: async (text) => (await client.query(text)).rows, close: async () => handle?.close() };
});

afterAll(async () => {
  await oneSession?.close();
  await t?.close();
});

function checked(): NewEvent {
  return { organizationId: t.organizationId, type: 'device', subtype: 'checked_for_release', actorPrn: devicePrn, resourcePrn: devicePrn, data: checkedForReleaseData(devicePrn) };
}

const eventsOnly = (): CheckWrite => ({ deviceId, events: [checked()], deviceUpdate: null, claim: null });

/** synchronous_commit in the transaction `write` ran in, on the one-session handle; rolled back after. */
async function commitModeAfter(write: (db: Database) => Promise<unknown>): Promise<string> {
  await oneSession.query('begin');
  try {
    await write(oneSession.db);
    const [row] = (await oneSession.query("select current_setting('synchronous_commit') as mode")) as { mode: string }[];
    return row.mode;
  } finally {
    await oneSession.query('rollback');
  }
}

describe('the commit of an update check group', () => {
  // A claim takes the same statement as a reported state (check-writes.ts groupStatementText),
  // so the reported-state case below stands for both.
  it('does not wait for the flush when the group only records events', async () => {
    expect(await commitModeAfter((db) => writeCheck(db, eventsOnly()))).toBe('off');
  });

  it('waits for the flush when a check of the group stores its reported state', async () => {
    const reporting: CheckWrite = {
      ...eventsOnly(),
      deviceUpdate: { deviceId, releasePrn: null, bundlePrn: null, releaseVersion: '9.9.9' },
    };
    expect(await commitModeAfter((db) => writeCheck(db, reporting))).toBe('on');
  });

  it("waits for the flush when a check touches the device's last_connected_at", async () => {
    const connecting: CheckWrite = {
      ...eventsOnly(),
      connection: { event: { ...checked(), subtype: 'connected', data: connectedData(devicePrn) }, touch: true },
    };
    expect(await commitModeAfter((db) => writeCheck(db, connecting))).toBe('on');
  });

  it("leaves a caller's transaction durable: its other writes commit with it", async () => {
    const mode = await t.server.platform.db.transaction(async (tx) => {
      expect(await writeCheck(tx as unknown as Database, eventsOnly())).toBe('written');
      const result = (await tx.execute(sql`select current_setting('synchronous_commit') as mode`)) as unknown as { rows: { mode: string }[] };
      return result.rows[0].mode;
    });
    expect(mode).toBe('on');
  });

  it('still records the events it does not wait for', async () => {
    const before = await eventCount();
    expect(await writeCheck(t.server.platform.db, eventsOnly())).toBe('written');
    expect(await eventCount()).toBe(before + 1);
  });
});

async function eventCount(): Promise<number> {
  const events = await t.api('GET', `/events?resource_prn=${encodeURIComponent(devicePrn)}&subtype=checked_for_release&limit=100`);
  return events.body.events.length;
}
