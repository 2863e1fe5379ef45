/**
 * Lookups by key that arrive in the same turn of the event loop, answered together. Under load
 * many requests are read from their sockets in one turn; one query for all of them costs the
 * database one statement and Node one pool checkout, one write and one read, instead of one
 * each. Nothing is remembered between turns: every lookup reads the database after it was asked
 * for, exactly as a query of its own would (the query is sent once the turn that asked is done).
 */

interface Waiting<V> {
  key: string;
  resolve(value: V): void;
  reject(error: unknown): void;
}

/** Keys per query at most; a larger turn is split. */
const MAX_KEYS = 100;

/**
 * The lookups asked for during one turn, handed to `flush` once that turn's I/O callbacks (and
 * their promise jobs) are done: setImmediate runs then.
 */
function perTurn<V>(flush: (turn: Waiting<V>[]) => void): (key: string) => Promise<V> {
  let waiting: Waiting<V>[] = [];
  const run = () => {
    const turn = waiting;
    waiting = [];
    flush(turn);
  };
  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(run);
      waiting.push({ key, resolve, reject });
    });
}

/** Settles every lookup in `waiting` from `answer`, which may also throw before it returns a promise. */
function settle<V>(waiting: Waiting<V>[], answer: () => Promise<(key: string) => V>): void {
  new Promise<(key: string) => V>((resolve) => resolve(answer())).then(
    (valueOf) => {
      for (const w of waiting) w.resolve(valueOf(w.key));
    },
    (error: unknown) => {
      for (const w of waiting) w.reject(error);
    },
  );
}

/**
 * `load(key)` answers what `run` found for the key (undefined when nothing). `run` receives the
 * distinct keys of one batch and answers a map from key to value; if it fails, every lookup in
 * that batch fails with its error.
 */
export function turnBatch<V>(run: (keys: string[]) => Promise<Map<string, V>>): (key: string) => Promise<V | undefined> {
  return perTurn<V | undefined>((turn) => {
    for (let start = 0; start < turn.length; start += MAX_KEYS) {
      const batch = turn.slice(start, start + MAX_KEYS);
      settle(batch, () => run([...new Set(batch.map((w) => w.key))]).then((found) => (key: string) => found.get(key)));
    }
  });
}

/**
 * `load(key)` answers `run(key)`, run once per distinct key of a turn: lookups of the same key in
 * one turn share its answer (or its error), lookups of other keys do not.
 */
export function turnShared<V>(run: (key: string) => Promise<V>): (key: string) => Promise<V> {
  return perTurn<V>((turn) => {
    const byKey = new Map<string, Waiting<V>[]>();
    for (const w of turn) {
      const same = byKey.get(w.key);
      if (same) same.push(w);
      else byKey.set(w.key, [w]);
    }
    for (const [key, waiting] of byKey) settle(waiting, () => run(key).then((value) => () => value));
  });
}
