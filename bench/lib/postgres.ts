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

/** Transactions committed in the database so far, read-only ones included (pg_stat lags about half a second). */
export async function committedTransactions(client: pg.Client): Promise<number> {
  return Number((await client.query('select xact_commit from pg_stat_database where datname = current_database()')).rows[0].xact_commit);
}
