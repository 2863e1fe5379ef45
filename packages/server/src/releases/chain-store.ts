/**
 * The database side of a cohort's release chain. Every chain edit runs inside one transaction
 * that first takes the cohort's row lock, so edits of one chain are serialised across all server
 * processes; it validates the links it is about to write (chain.ts) and, once written, reads the
 * chain back and validates it again, so a bug can roll the edit back but never leave a broken
 * chain behind.
 */
import { eq, sql } from 'drizzle-orm';
import { cohorts } from '../cohorts/schema';
import type { Executor } from '../db/connection';
import { conflict } from '../http/errors';
import { resourcePrn } from '../core/prn';
import { applyLinkChanges, validateChain, type ChainProblem, type LinkChange } from './chain';
import { releaseChainVersions, releases } from './schema';

export type ReleaseRow = typeof releases.$inferSelect;

/**
 * Serialises edits of one cohort's chain. `for no key update` conflicts with itself (two chain
 * edits) but not with the key-share lock a device insert takes on its cohort, so adding devices
 * never waits for release edits.
 */
export async function lockCohortChain(tx: Executor, cohortId: string): Promise<void> {
  await tx.execute(sql`select 1 from ${cohorts} where ${cohorts.id} = ${cohortId} for no key update`);
}

/** The cohort's releases, first to latest. Throws 409 if the stored chain is already broken. */
export async function loadChain(tx: Executor, organizationId: string, cohortId: string): Promise<ReleaseRow[]> {
  const rows = await tx.select().from(releases).where(eq(releases.cohortId, cohortId));
  const validation = validateChain(rows.map((row) => ({ id: row.id, nextReleaseId: row.nextReleaseId, cohortId: row.cohortId })), cohortId);
  if (!validation.ok) throw chainInvalid(organizationId, validation);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return validation.order.map((id) => byId.get(id)!);
}

/** 409 `release_chain_invalid`, naming the problem with prns. */
export function chainInvalid(organizationId: string, problem: ChainProblem | { reason: string; releaseId?: string }) {
  const context: Record<string, unknown> = { reason: problem.reason };
  const prn = (id: string) => resourcePrn(organizationId, 'release', id);
  for (const [key, value] of Object.entries(problem)) {
    if (key === 'reason' || key === 'ok') continue;
    const wireKey = key.replace(/Ids?$/, (m) => (m === 'Ids' ? '_prns' : '_prn')).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    context[wireKey] = Array.isArray(value) ? value.map(prn) : typeof value === 'string' ? prn(value) : value;
  }
  return conflict('release_chain_invalid', context);
}

/**
 * The order after `changes` (and removals), or a 409 naming what would break. Called before any
 * write, so a refused edit changes nothing.
 */
export function orderAfter(organizationId: string, cohortId: string, chain: readonly ReleaseRow[], changes: readonly LinkChange[], removedIds: readonly string[] = []): string[] {
  const links = chain.map((row) => ({ id: row.id, nextReleaseId: row.nextReleaseId, cohortId: row.cohortId }));
  const validation = validateChain(applyLinkChanges(links, changes, removedIds), cohortId);
  if (!validation.ok) throw chainInvalid(organizationId, validation);
  return validation.order;
}

/** Writes the link changes of rows that already exist (new rows are inserted with their link). */
export async function writeLinks(tx: Executor, changes: readonly LinkChange[]): Promise<void> {
  for (const change of changes) {
    await tx.update(releases).set({ nextReleaseId: change.nextReleaseId, updatedAt: sql`now()` }).where(eq(releases.id, change.releaseId));
  }
}

/**
 * Reads the chain back after the writes: anything but a valid chain rolls the transaction back.
 * Every edit ends here, so this is also where the cohort's chain stamp moves (updates/chain-cache.ts):
 * in the edit's own transaction, so a check that sees the new stamp sees the new chain.
 */
export async function verifyChain(tx: Executor, organizationId: string, cohortId: string): Promise<ReleaseRow[]> {
  const chain = await loadChain(tx, organizationId, cohortId);
  await bumpChainStamp(tx, cohortId);
  return chain;
}

/** Moves the cohort's chain stamp: every cached copy of its chain (updates/chain-cache.ts) is stale. */
export async function bumpChainStamp(tx: Executor, cohortId: string): Promise<void> {
  await tx
    .insert(releaseChainVersions)
    .values({ cohortId, version: 1 })
    .onConflictDoUpdate({ target: releaseChainVersions.cohortId, set: { version: sql`${releaseChainVersions.version} + 1` } });
}
