/**
 * A request's writes as ONE transaction, without handing a transaction object to the code that
 * writes: every statement the database handle sends while a request scope is active goes to the
 * scope's connection, inside a transaction begun at the scope's first write (reads before it run
 * as they always did, so a slow step before the write, such as a webhook's test fire or a streamed
 * upload, holds no transaction open). A `db.transaction()` inside the scope becomes a savepoint.
 * The scope ends by committing (with whatever `beforeCommit` adds, e.g. the admin audit event) or
 * rolling back. The routing happens in the driver objects drizzle holds (`scoped-clients.ts`), so
 * the database handle keeps its identity and every module keeps using it as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What a scope's statements run on: a node-postgres client or a PGlite transaction. */
export interface ScopeConnection {
  query(...args: unknown[]): Promise<unknown>;
}

/** How one driver opens a transaction for a scope, and ends it. */
export interface ScopeDriver {
  open(): Promise<{ connection: ScopeConnection; end(commit: boolean): Promise<void> }>;
}

export class RequestScope {
  private opening: ReturnType<ScopeDriver['open']> | null = null;
  done = false;
  readonly afterCommit: (() => void)[] = [];
  constructor(readonly driver: ScopeDriver) {}

  get opened(): boolean {
    return this.opening !== null;
  }

  /** The scope's connection, its transaction begun on first use. */
  async connection(): Promise<ScopeConnection> {
    this.opening ??= this.driver.open();
    return (await this.opening).connection;
  }

  async end(commit: boolean): Promise<void> {
    this.done = true;
    if (this.opening) await (await this.opening).end(commit);
    if (commit) for (const run of this.afterCommit.splice(0)) run();
  }
}

const scopes = new AsyncLocalStorage<RequestScope>();
const drivers = new WeakMap<object, ScopeDriver>();

/** Called by connection.ts: `db`'s driver objects route to scopes opened on `driver`. */
export function registerScopeDriver(db: object, driver: ScopeDriver): void {
  drivers.set(db, driver);
}

/** The active, unfinished scope for `driver` (work a finished request left running uses the pool). */
export function activeScope(driver: ScopeDriver): RequestScope | null {
  const scope = scopes.getStore();
  return scope && !scope.done && scope.driver === driver ? scope : null;
}

/**
 * The key for values that batch one turn's lookups (read-path/owned-json.ts, statement groups):
 * inside a scope, the scope itself, so a request's lookups never join a batch that runs on
 * another connection (which could not see its uncommitted rows, and on PGlite would wait forever
 * for the transaction that waits for it).
 */
export function batchKey(db: object): object {
  const driver = drivers.get(db);
  const scope = driver ? activeScope(driver) : null;
  return scope ?? db;
}

/** Runs `run` now, or after the active scope commits (a job woken before its row is visible would find nothing). */
export function afterRequestCommit(run: () => void): void {
  const scope = scopes.getStore();
  if (scope && !scope.done && scope.opened) scope.afterCommit.push(run);
  else run();
}

/**
 * Runs `run` outside any request scope: its statements, and those of timers it starts, go to the
 * pool and commit on their own, whatever becomes of the request's transaction (a durable note
 * that must outlive a request rolled back or killed: legacy/firmware-upload-sweep.ts).
 */
export function outsideRequestScope<T>(run: () => T): T {
  return scopes.exit(run);
}

/**
 * Runs `run` in a new scope on `db`; `beforeCommit` runs in the scope after it (its writes join the
 * transaction). A throw from either rolls back; else the scope commits.
 */
export async function inRequestTransaction<T>(db: object, run: () => Promise<T>, beforeCommit: (result: T) => Promise<void>): Promise<T> {
  const driver = drivers.get(db);
  if (!driver) throw new Error('inRequestTransaction: this database handle was not made by connect()');
  const scope = new RequestScope(driver);
  let result: T;
  try {
    result = await scopes.run(scope, async () => {
      const value = await run();
      await beforeCommit(value);
      return value;
    });
  } catch (error) {
    await scope.end(false);
    throw error;
  }
  await scope.end(true);
  return result;
}

const LOCKING_READ = /\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i;

/** A plain read, which may run before the scope's transaction begins; anything else begins it. */
export function isPlainRead(text: string): boolean {
  return /^\s*select\b/i.test(text) && !LOCKING_READ.test(text);
}

/** The text of a driver query's first argument (a string or a node-postgres query config). */
export function queryText(first: unknown): string {
  if (typeof first === 'string') return first;
  return first && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string' ? (first as { text: string }).text : '';
}

const NESTED = 'request_scope_nested';

/** A nested transaction's begin, commit and rollback as savepoints of the scope's transaction. */
export function nestedStatement(text: string): string | null {
  const word = /^\s*(begin|commit|rollback)\b/i.exec(text)?.[1]?.toLowerCase();
  if (word === 'begin') return `savepoint ${NESTED}`;
  if (word === 'commit') return `release savepoint ${NESTED}`;
  // Rolled back to, the savepoint stays until the scope's transaction ends: harmless.
  if (word === 'rollback') return `rollback to savepoint ${NESTED}`;
  return null;
}
