/**
 * How PostgreSQL planned our named statements, read from every connection of the server's pool
 * (pg_prepared_statements is per connection). A fixed-text statement should run its generic plan:
 * PostgreSQL makes five custom plans first, then keeps the generic one unless the custom plans
 * look cheaper, in which case it plans afresh on every execution (db/array-parameters.ts).
 */
import { expect } from 'vitest';
import type { Executor } from '../../src/db/connection';

/** Asserts that no statement whose name starts with `prefix` was planned more than five times as a custom plan. */
export async function expectPlannedOnce(db: Executor, prefix: string): Promise<void> {
  const pool = (db as unknown as { $client: import('pg').Pool }).$client;
  const connections = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
  let seen = 0;
  try {
    for (const connection of connections) {
      const { rows } = await connection.query(
        `select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where starts_with(name, $1)`,
        [prefix],
      );
      seen += rows.length;
      for (const row of rows) expect(row.custom, `${row.name}: ${row.custom} custom, ${row.generic} generic plans`).toBeLessThanOrEqual(5);
    }
  } finally {
    for (const connection of connections) connection.release();
  }
  // A prefix that matches nothing would make the check pass without looking at anything.
  expect(seen).toBeGreaterThan(0);
}
