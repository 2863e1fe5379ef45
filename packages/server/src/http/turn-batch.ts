/**
 * Lookups by key that arrive in the same turn of the event loop, answered by one query. Under
 * load many requests are read from their sockets in one turn; one query for all of them costs
 * the database one statement and Node one pool checkout, one write and one read, instead of one
 * each. Nothing is remembered between turns: every lookup reads the database after it was asked
 * for, exactly as a query of its own would.
 */

interface Waiting<V> {
  key: string;
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

/** Keys per query at most; a larger turn is split. */
const MAX_KEYS = 100;

/**
 * `load(key)` answers what `run` found for the key (undefined when nothing). `run` receives the
 * distinct keys of one batch and answers a map from key to value; if it fails, every lookup in
 * that batch fails with its error.
 */
export function turnBatch<V>(run: (keys: string[]) => Promise<Map<string, V>>): (key: string) => Promise<V | undefined> {
  let waiting: Waiting<V>[] = [];
  const flush = () => {
    const turn = waiting;
    waiting = [];
    for (let start = 0; start < turn.length; start += MAX_KEYS) {
      const batch = turn.slice(start, start + MAX_KEYS);
      run([...new Set(batch.map((w) => w.key))]).then(
        (found) => {
          for (const w of batch) w.resolve(found.get(w.key));
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      );
    }
  };
  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      // setImmediate runs once this turn's I/O callbacks (and their promise jobs) are done.
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ key, resolve, reject });
    });
}
