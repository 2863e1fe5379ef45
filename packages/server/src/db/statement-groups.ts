/**
 * Calls that each need one short statement, grouped: the calls made at about the same time in
 * this process are served by ONE statement (one round trip, one parse and plan, and for writes
 * one commit and one WAL flush) instead of one each. Every caller still waits for its group's
 * statement: when its promise resolves, what it wrote is committed, exactly as if written alone.
 *
 * Grouping never waits for company on an idle server: a call joins the next group to leave, and a
 * group leaves as soon as fewer than `maxInFlight` groups are at the database (and, when some
 * are, it has `minGroupWhenBusy` calls). A group that fails as a whole is retried call by call,
 * so one call's error is only ever its own.
 */

import { batchKey } from './request-scope';

export interface StatementGroupOptions<Item = unknown> {
  /** Groups at the database at once: enough to overlap one group's round trip with the next. */
  maxInFlight?: number;
  /** Calls per group: keeps one statement's parameters and planning small. */
  maxGroup?: number;
  /**
   * While a group is at the database, a further group leaves only with at least this many calls;
   * fewer wait for a group to come back. Every statement has a fixed cost (its executor start,
   * its commit): under load a group of one or two pays it nearly alone, while the calls behind a
   * group in flight can as well leave together once it returns. An idle server still sends a
   * lone call at once. Default 1: any call leaves while fewer than `maxInFlight` groups are out.
   */
  minGroupWhenBusy?: number;
  /**
   * Calls with the same key never share a group (e.g. two writes to one row, which one statement
   * could not order): the later one waits for the next group and sees the earlier one's effect.
   */
  exclusiveKey?: (item: Item) => string;
  /** When a group fails, run its calls again one by one (writes); false fails them all (reads). */
  retryAlone?: boolean;
}

interface Pending<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export class StatementGroups<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;
  private readonly maxGroup: number;
  private readonly minGroupWhenBusy: number;
  private readonly exclusiveKey?: (item: Item) => string;
  private readonly retryAlone: boolean;

  /** `run` answers one result per item, in the items' order. */
  constructor(
    private readonly run: (items: readonly Item[]) => Promise<Result[]>,
    options: StatementGroupOptions<Item> = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 4;
    this.maxGroup = options.maxGroup ?? 64;
    this.minGroupWhenBusy = options.minGroupWhenBusy ?? 1;
    this.exclusiveKey = options.exclusiveKey;
    this.retryAlone = options.retryAlone ?? true;
  }

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // Calls whose I/O completes in this turn of the event loop leave together.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      // Too few for a group of their own while one is out: they leave when it returns.
      if (this.inFlight > 0 && this.queue.length < this.minGroupWhenBusy) return;
      const group = this.take();
      this.inFlight++;
      void this.runGroup(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The next group in arrival order, at most one call per exclusive key. */
  private take(): Pending<Item, Result>[] {
    const exclusiveKey = this.exclusiveKey;
    if (!exclusiveKey) return this.queue.splice(0, this.maxGroup);
    const group: Pending<Item, Result>[] = [];
    const rest: Pending<Item, Result>[] = [];
    const keysInGroup = new Set<string>();
    for (const pending of this.queue) {
      const key = exclusiveKey(pending.item);
      if (group.length < this.maxGroup && !keysInGroup.has(key)) {
        keysInGroup.add(key);
        group.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return group;
  }

  private async runGroup(group: Pending<Item, Result>[]): Promise<void> {
    try {
      const results = await this.run(group.map((pending) => pending.item));
      group.forEach((pending, i) => pending.resolve(results[i]));
    } catch (error) {
      if (group.length === 1 || !this.retryAlone) return group.forEach((pending) => pending.reject(error));
      await Promise.all(
        group.map((pending) =>
          this.run([pending.item]).then(
            ([result]) => pending.resolve(result),
            (alone) => pending.reject(alone),
          ),
        ),
      );
    }
  }
}

/** One StatementGroups per database handle (and request scope) (each test builds its own platform and database). */
export function groupsPerExecutor<Db extends object, Item, Result>(
  make: (db: Db) => StatementGroups<Item, Result>,
): (db: Db) => StatementGroups<Item, Result> {
  const byDb = new WeakMap<Db, StatementGroups<Item, Result>>();
  return (db) => {
    // Inside a request scope (request-scope.ts) its own groups: a group runs on one connection.
    const key = batchKey(db) as Db;
    let groups = byDb.get(key);
    if (!groups) byDb.set(key, (groups = make(db)));
    return groups;
  };
}
