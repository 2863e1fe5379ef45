/**
 * A throwaway PostgreSQL database for one benchmark run, dropped afterwards
 * (BENCH_KEEP_DATABASE=1 keeps it and prints its name, to study the seeded data's plans).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function withDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const name = `canopy_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    if (process.env.BENCH_KEEP_DATABASE === '1') console.log(`kept database ${name}`);
    else await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Runs `use` on a connection of its own to `databaseUrl`, closed afterwards. */
export async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Transactions committed in the database so far, read-only ones included (pg_stat lags about half a second). */
export async function committedTransactions(client: pg.Client): Promise<number> {
  return Number((await client.query('select xact_commit from pg_stat_database where datname = current_database()')).rows[0].xact_commit);
}

export interface WalUse {
  /** WAL bytes written, full-page images among them, and WAL flushes to disk. */
  bytes: number;
  fullPageImages: number;
  syncs: number;
}

/**
 * The cluster's WAL written between `start` and `stop` (pg_stat_wal): on a quiet machine, what
 * a load costs PostgreSQL's disk. A durable commit waits for its WAL to be flushed, so WAL volume
 * is latency as well as I/O.
 */
export async function walClock(databaseUrl: string): Promise<{ stop(): Promise<WalUse> }> {
  const read = () =>
    withClient(databaseUrl, async (client): Promise<WalUse> => {
      const { rows } = await client.query('select wal_bytes::float8 as bytes, wal_fpi::float8 as fpi, wal_sync::float8 as syncs from pg_stat_wal');
      return { bytes: rows[0].bytes, fullPageImages: rows[0].fpi, syncs: rows[0].syncs };
    });
  const before = await read();
  return {
    async stop() {
      const after = await read();
      return { bytes: after.bytes - before.bytes, fullPageImages: after.fullPageImages - before.fullPageImages, syncs: after.syncs - before.syncs };
    },
  };
}
