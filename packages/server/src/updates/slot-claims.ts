/**
 * Concurrency cap places (rule: core/concurrency-rule.ts), exact with many server processes: a
 * take (canopy_take_slot, migration 0013) locks the release row, then counts and inserts in
 * queries whose fresh READ COMMITTED snapshots follow the lock: no two see room for the last
 * place. One round trip. Frees (finishing reports) take no lock: they only shrink the count. A place past `expires_at` counts for nobody.
 * The check decides whether to try a take from slotsInUseCached (one count per release per
 * process per COUNT_TTL_MS): a stale count never exceeds the cap, at worst a freed place waits
 * COUNT_TTL_MS. Why this scheme, and its cost: docs/decisions/013-concurrency-cap-places.md.
 */
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';

export interface SlotTake {
  releaseId: string;
  deviceId: string;
  organizationId: string;
}

/** Both drivers answer a raw statement with `{ rows }`; drizzle's type does not say so. */
async function rowsOf<T>(query: Promise<unknown>): Promise<T[]> {
  return ((await query) as { rows: T[] }).rows;
}

/**
 * Takes a place for the device under the release's cap; true when it holds one now (also when
 * it already did). False when the cap is full, or the release is no longer capped.
 */
export async function takeSlot(db: Database, take: SlotTake): Promise<boolean> {
  // canopy_take_slot (migration 0013): the release row's lock, then a fresh snapshot per query.
  const [row] = await rowsOf<{ held: boolean; cap: number | null }>(
    db.execute(sql`select canopy_take_slot(${take.releaseId}::uuid, ${take.deviceId}::uuid, ${take.organizationId}::uuid) as held,
      (select max_concurrent from releases where id = ${take.releaseId}) as cap`),
  );
  const held = row?.held === true;
  noteTake(db, take.releaseId, held, row?.cap ?? null);
  return held;
}

/** The device finished (or deferred) the release: its place goes to the next device. */
export async function freeSlot(db: Executor, releaseId: string, deviceId: string): Promise<void> {
  await db.execute(sql`delete from update_slots where release_id = ${releaseId} and device_id = ${deviceId}`);
}

/** Devices holding a live slot of the release now (rollout progress, tests, the benchmark). */
export async function slotsInUse(db: Executor, releaseId: string): Promise<number> {
  const [row] = await rowsOf<{ n: number | string }>(db.execute(sql`select count(*) as n from update_slots where release_id = ${releaseId} and expires_at > now()`));
  return Number(row?.n ?? 0);
}

/** How long a process reuses a release's count (see the header). */
const COUNT_TTL_MS = 250;
const counts = new WeakMap<object, Map<string, { at: number; used: Promise<number> }>>();

function countsOf(db: Executor): Map<string, { at: number; used: Promise<number> }> {
  let map = counts.get(db);
  if (!map) counts.set(db, (map = new Map()));
  return map;
}

/** The release's live slots as counted at most COUNT_TTL_MS ago by this process. */
export function slotsInUseCached(db: Executor, releaseId: string): Promise<number> {
  const map = countsOf(db);
  const hit = map.get(releaseId);
  if (hit && Date.now() - hit.at < COUNT_TTL_MS) return hit.used;
  if (map.size > 10_000) map.clear();
  const used = slotsInUse(db, releaseId);
  map.set(releaseId, { at: Date.now(), used });
  used.catch(() => map.delete(releaseId));
  return used;
}

/** After a take: refused means full now; granted means one more than counted. */
export function noteTake(db: Executor, releaseId: string, granted: boolean, cap: number | null): void {
  const map = countsOf(db);
  const hit = map.get(releaseId);
  if (!granted && cap !== null) map.set(releaseId, { at: Date.now(), used: Promise.resolve(cap) });
  else if (granted && hit) map.set(releaseId, { at: hit.at, used: hit.used.then((n) => n + 1) });
}
