/**
 * Prepared queries, one per executor and shape. Building a drizzle query costs more than running
 * the ones that run on nearly every request (one row by id; a plain page of a list), and a named
 * statement spares PostgreSQL the parse and plan too.
 */
import type { Executor } from '../db/connection';
import { PerHandle } from '../db/per-handle';

export interface Prepared {
  execute(values: Record<string, unknown>): Promise<unknown[]>;
  /**
   * The rows as the driver answers them, keyed by column name (select aliases), without drizzle's
   * mapping of each row: for queries whose rows are many and need no mapping (a list page).
   */
  all(values: Record<string, unknown>): Promise<unknown[]>;
}

const preparedQueries = new PerHandle<string, Prepared>();

/** The query `name` for `db`, built and prepared on first use. */
export function prepared(db: Executor, name: string, build: () => { prepare(name: string): unknown }): Prepared {
  return preparedQueries.get(db, name, () => build().prepare(name) as Prepared);
}
