/**
 * A short-lived memory of authenticated API keys, so the hot path of every admin request does
 * not pay a database round trip for the key. Entries live KEY_CACHE_TTL_MS at most. A revocation
 * clears it in this process at once and, through PostgreSQL's notifications, in every other
 * (key-revocations.ts); a process not listening for them does not trust it at all
 * (`distrustCachedKeys`). Unknown keys are never cached, so guessing keys cannot fill memory.
 */
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';

export const KEY_CACHE_TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  actor: Actor;
  /** When this entry stops being trusted: the cache TTL or the key's own expiry, whichever is first. */
  until: number;
}

const caches = new WeakMap<object, Map<string, Entry>>();
const inFlight = new WeakMap<object, Map<string, Promise<Actor | null>>>();
/** Handles whose revocations this process may miss: nothing is answered from, or kept in, their cache. */
const distrusted = new WeakSet<object>();

function cacheFor(db: Executor): Map<string, Entry> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

export function cachedActor(db: Executor, tokenHash: string, now = Date.now()): Actor | null {
  if (distrusted.has(db)) return null;
  const cache = cacheFor(db);
  const entry = cache.get(tokenHash);
  if (!entry) return null;
  if (entry.until <= now) {
    cache.delete(tokenHash);
    return null;
  }
  return entry.actor;
}

export function rememberActor(db: Executor, tokenHash: string, actor: Actor, keyExpiresAt: number | null, now = Date.now()): void {
  if (distrusted.has(db)) return;
  const cache = cacheFor(db);
  // Maps iterate in insertion order: dropping the first entry drops the oldest.
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(tokenHash, { actor, until: Math.min(now + KEY_CACHE_TTL_MS, keyExpiresAt ?? Infinity) });
}

/**
 * One database lookup per key at a time: when an entry expires under load, every request that
 * arrives before the lookup answers waits for that one instead of each querying the database
 * (64 connections made 64 identical queries every KEY_CACHE_TTL_MS, and a p99 spike).
 */
export function lookupOnce(db: Executor, tokenHash: string, lookup: () => Promise<Actor | null>): Promise<Actor | null> {
  let pending = inFlight.get(db);
  if (!pending) {
    pending = new Map();
    inFlight.set(db, pending);
  }
  const running = pending.get(tokenHash);
  if (running) return running;
  const started = lookup().finally(() => {
    if (pending.get(tokenHash) === started) pending.delete(tokenHash);
  });
  pending.set(tokenHash, started);
  return started;
}

/** After a revocation or a user's deletion: forget everything this process remembered. */
export function forgetCachedKeys(db: Executor): void {
  caches.get(db)?.clear();
  // A lookup that started before the revocation may answer the old row; later requests start a new one.
  inFlight.get(db)?.clear();
}

/** While this process may miss other processes' revocations (its listener is down), or again after. */
export function distrustCachedKeys(db: Executor, distrust: boolean): void {
  if (distrust) distrusted.add(db);
  else distrusted.delete(db);
  forgetCachedKeys(db);
}
