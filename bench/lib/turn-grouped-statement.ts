/**
 * The grouping the floors of bench/lib use to be as generous as any implementation could be:
 * every request of one event-loop turn joins ONE statement (one round trip, one commit), and
 * while `inFlight` statements are at the database the next group waits and grows. The statement
 * answers a `key` column naming the requests it found; each request learns whether it was found.
 */
import type pg from 'pg';

interface Waiting<T> {
  item: T;
  done(found: boolean): void;
  fail(error: unknown): void;
}

export interface TurnGroupedStatement<T> {
  name: string;
  text: string;
  inFlight: number;
  /** The statement's parameters for a group, in the group's order. */
  values(items: T[]): unknown[];
  /** The `key` the statement answers for an item it found. */
  keyOf(item: T): string;
}

/** A function that submits one item to the next group; resolves with whether it was found. */
export function turnGroupedStatement<T>(pool: pg.Pool, statement: TurnGroupedStatement<T>): (item: T) => Promise<boolean> {
  let waiting: Waiting<T>[] = [];
  let inFlight = 0;

  function flush(): void {
    if (waiting.length === 0 || inFlight >= statement.inFlight) return;
    const group = waiting;
    waiting = [];
    inFlight++;
    pool
      .query({ name: statement.name, text: statement.text, values: statement.values(group.map((w) => w.item)) })
      .then(
        (result) => {
          const found = new Set(result.rows.map((row) => row.key as string));
          for (const request of group) request.done(found.has(statement.keyOf(request.item)));
        },
        (error) => group.forEach((request) => request.fail(error)),
      )
      .finally(() => {
        inFlight--;
        flush();
      });
  }

  return (item) =>
    new Promise((done, fail) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ item, done, fail });
    });
}
