/**
 * The driver objects drizzle holds, made scope-aware (request-scope.ts): outside a request scope
 * they are the plain pool or PGlite; inside one, statements go to the scope's transaction (begun
 * at its first write) and a nested transaction becomes a savepoint of it.
 */
import type { PGlite, Transaction as PgliteTransaction } from '@electric-sql/pglite';
import pg from 'pg';
import { activeScope, isPlainRead, nestedStatement, queryText, type ScopeConnection, type ScopeDriver } from './request-scope';

/** Rolls a PGlite scope transaction back (PGlite rolls back when its callback throws). */
const ROLLBACK = Symbol('request scope rollback');

/** A client for a nested transaction on the scope's connection: begin, commit and rollback become savepoint statements. */
function nestedClient(connection: () => Promise<ScopeConnection>) {
  return {
    async query(config: unknown, ...rest: unknown[]) {
      const client = await connection();
      const nested = nestedStatement(queryText(config));
      if (nested !== null) return client.query(nested);
      return client.query(config, ...rest);
    },
    release() {},
  };
}

/**
 * A node-postgres pool whose statements, inside a request scope, run on the scope's client.
 * drizzle sees a Pool (it checks the class), so `db.transaction()` asks it for a client: inside a
 * scope that is the nested client above.
 */
export class RequestScopedPool extends pg.Pool {
  readonly scopeDriver: ScopeDriver = {
    open: async () => {
      const client = await super.connect();
      try {
        await client.query('begin');
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      return {
        connection: client as unknown as ScopeConnection,
        async end(commit: boolean) {
          try {
            await client.query(commit ? 'commit' : 'rollback');
            client.release();
          } catch (error) {
            client.release(error as Error);
            throw error;
          }
        },
      };
    },
  };

  // Both overloads of pg's query pass through here; only the promise form is ever used in scope.
  query(...args: unknown[]): never {
    const scope = activeScope(this.scopeDriver);
    if (!scope || typeof args[args.length - 1] === 'function' || (!scope.opened && isPlainRead(queryText(args[0])))) {
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    return scope.connection().then((client) => client.query(...args)) as never;
  }

  // pg's own query() calls connect with a callback: that path is never routed.
  connect(...args: unknown[]): never {
    const scope = activeScope(this.scopeDriver);
    if (!scope || args.length > 0) return (super.connect as (...a: unknown[]) => never)(...args);
    return Promise.resolve(nestedClient(() => scope.connection())) as never;
  }
}

/** PGlite whose statements, inside a request scope, run in the scope's PGlite transaction. */
export function requestScopedPglite(raw: PGlite): { client: PGlite; scopeDriver: ScopeDriver } {
  const scopeDriver: ScopeDriver = {
    open: () =>
      new Promise((resolve, reject) => {
        let finish!: (commit: boolean) => void;
        const finished = new Promise<boolean>((r) => (finish = r));
        const outcome = raw
          .transaction(async (tx) => {
            resolve({
              connection: tx as unknown as ScopeConnection,
              async end(commit: boolean) {
                finish(commit);
                await outcome;
              },
            });
            if (!(await finished)) throw ROLLBACK;
          })
          .catch((error: unknown) => {
            if (error !== ROLLBACK) throw error;
          });
        outcome.catch(reject);
      }),
  };
  const route = (name: 'query' | 'exec') =>
    async (...args: unknown[]) => {
      const scope = activeScope(scopeDriver);
      if (!scope || (!scope.opened && isPlainRead(queryText(args[0])))) return (raw[name] as (...a: unknown[]) => unknown)(...args);
      const tx = (await scope.connection()) as unknown as PgliteTransaction;
      return (tx[name] as (...a: unknown[]) => unknown)(...args);
    };
  const transaction = async (run: (tx: PgliteTransaction) => Promise<unknown>) => {
    const scope = activeScope(scopeDriver);
    if (!scope) return raw.transaction(run);
    const tx = (await scope.connection()) as unknown as PgliteTransaction;
    await tx.query('savepoint request_scope_nested');
    try {
      const result = await run(tx);
      await tx.query('release savepoint request_scope_nested');
      return result;
    } catch (error) {
      await tx.query('rollback to savepoint request_scope_nested');
      throw error;
    }
  };
  const overrides: Record<string, unknown> = { query: route('query'), exec: route('exec'), transaction };
  // PGlite keeps its state in private fields: every other member is read from, and bound to, the instance itself.
  const client = new Proxy(raw, {
    get(target, property) {
      if (typeof property === 'string' && property in overrides) return overrides[property];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client, scopeDriver };
}
