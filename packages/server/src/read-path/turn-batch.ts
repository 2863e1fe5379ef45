/**
 * Lookups by key that arrive in the same turn of the event loop, answered together, on the one
 * batching primitive (db/statement-groups.ts) with no limit on groups in flight: under load many
 * requests are read from their sockets in one turn, and one query for all of them costs the
 * database one statement and Node one pool checkout instead of one each. Nothing is remembered
 * between turns: every lookup reads the database after it was asked for. A failed query fails
 * the lookups that shared it (reads are not retried one by one).
 */
import { StatementGroups } from '../db/statement-groups';

/** Keys per query at most; a larger turn is split. */
const MAX_KEYS = 100;

/**
 * `load(key)` answers what `run` found for the key (undefined when nothing). `run` receives the
 * distinct keys of one batch and answers a map from key to value.
 */
export function turnBatch<V>(run: (keys: string[]) => Promise<Map<string, V>>): (key: string) => Promise<V | undefined> {
  const groups = new StatementGroups<string, V | undefined>(
    async (keys) => {
      const found = await run([...new Set(keys)]);
      return keys.map((key) => found.get(key));
    },
    { maxInFlight: Infinity, maxGroup: MAX_KEYS, retryAlone: false },
  );
  return (key) => groups.submit(key);
}

/**
 * `load(key)` answers `run(key)`, run once per distinct key of a turn: lookups of the same key in
 * one turn share its answer (or its error), lookups of other keys do not.
 */
export function turnShared<V>(run: (key: string) => Promise<V>): (key: string) => Promise<V> {
  const groups = new StatementGroups<string, PromiseSettledResult<V>>(
    (keys) => {
      const byKey = new Map<string, Promise<PromiseSettledResult<V>>>();
      for (const key of keys) if (!byKey.has(key)) byKey.set(key, run(key).then((value) => ({ status: 'fulfilled', value }), (reason: unknown) => ({ status: 'rejected', reason })));
      return Promise.all(keys.map((key) => byKey.get(key)!));
    },
    { maxInFlight: Infinity, maxGroup: Infinity, retryAlone: false },
  );
  return async (key) => {
    const settled = await groups.submit(key);
    if (settled.status === 'rejected') throw settled.reason;
    return settled.value;
  };
}
