/**
 * Prepared queries, one per executor and shape. Building a drizzle query costs more than running
 * the ones that run on nearly every request (one row by id; a plain page of a list), and a named
 * statement spares PostgreSQL the parse and plan too.
 */
import type { Executor } from '../db/connection';

export interface Prepared {
  execute(values: Record<string, unknown>): Promise<unknown[]>;
}

const preparedQueries = new WeakMap<object, Map<string, Prepared>>();

/** The query `name` for `db`, built and prepared on first use. */
export function prepared(db: Executor, name: string, build: () => { prepare(name: string): unknown }): Prepared {
  let byName = preparedQueries.get(db);
  if (!byName) {
    byName = new Map();
    preparedQueries.set(db, byName);
  }
  let query = byName.get(name);
  if (!query) {
    query = build().prepare(name) as Prepared;
    byName.set(name, query);
  }
  return query;
}
