/**
 * Failed claims per client address, in the database so every server process counts the same
 * failures: after MAX_FAILURES in WINDOW_MS an address is refused (429) until its oldest failure
 * leaves the window. Exact, not approximate: an attempt first reserves a row under an advisory
 * lock on its address (count, then insert, one transaction), so concurrent attempts through any
 * number of processes never admit more than MAX_FAILURES; a claim that succeeds gives its row back.
 * Runs outside any request transaction: a refused claim rolls back, its failure must not.
 */
import { and, eq, lte, sql } from 'drizzle-orm';
import type { Database } from '../db/connection';
import { outsideRequestScope } from '../db/request-scope';
import { claimFailures } from './schema';

export const MAX_FAILURES = 10;
export const WINDOW_MS = 60_000;

export interface FailureLimiter {
  /** A reservation for one attempt, or null when the address is limited now. */
  reserve(address: string): Promise<number | null>;
  /** The attempt succeeded (or failed for a reason not the caller's): it does not count. */
  release(reservation: number): Promise<void>;
}

export function createFailureLimiter(db: Database, max = MAX_FAILURES, windowMs = WINDOW_MS): FailureLimiter {
  const since = sql`now() - make_interval(secs => ${windowMs / 1000})`;
  return {
    reserve: (address) =>
      outsideRequestScope(() =>
        db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(hashtext('claim-failures:' || ${address}))`);
          await tx.delete(claimFailures).where(lte(claimFailures.failedAt, since));
          const [{ count }] = await tx.select({ count: sql<number>`count(*)::int` }).from(claimFailures).where(eq(claimFailures.address, address));
          if (count >= max) return null;
          const [row] = await tx.insert(claimFailures).values({ address }).returning({ id: claimFailures.id });
          return row.id;
        }),
      ),
    release: (reservation) => outsideRequestScope(async () => void (await db.delete(claimFailures).where(and(eq(claimFailures.id, reservation))))),
  };
}
