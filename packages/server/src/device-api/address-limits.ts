/**
 * The two per-source-address bookkeepers of handshake shedding (handshake-shedding.ts), pure so
 * they are tested alone. Keys are sourceAddressKey()s.
 */

/** Counts per key, each at most `max`: handshakes in flight per source address. */
export interface PerKeyLimit {
  /** Counts one more for `key`; false (and nothing counted) when it is at `max` already. */
  take(key: string): boolean;
  release(key: string): void;
  count(key: string): number;
}

export function createPerKeyLimit(max: number): PerKeyLimit {
  const counts = new Map<string, number>();
  return {
    take(key) {
      const count = counts.get(key) ?? 0;
      if (count >= max) return false;
      counts.set(key, count + 1);
      return true;
    },
    release(key) {
      const count = counts.get(key) ?? 0;
      // No entry is kept for a key at zero: the map holds only sources with handshakes now.
      if (count <= 1) counts.delete(key);
      else counts.set(key, count - 1);
    },
    count: (key) => counts.get(key) ?? 0,
  };
}

/**
 * Items held oldest first, at most `perKey` per key and `total` in all: adding one beyond a limit
 * pushes out the oldest of its key (or of all). Connections that have not sent their first TLS
 * record are held so: a new connection always gets in, and what makes room is the one that has
 * been silent longest, so idle sockets cannot keep a device behind the same address out.
 */
export interface OldestFirstPool<T> {
  /** Adds `item` under `key` and returns the items pushed out to make room (no longer held). */
  add(key: string, item: T): T[];
  /** True when `item` was held. */
  delete(item: T): boolean;
  size(): number;
  sizeOf(key: string): number;
}

export function createOldestFirstPool<T>(perKey: number, total: number): OldestFirstPool<T> {
  // Maps and Sets iterate in insertion order: their first entry is the oldest.
  const keyOf = new Map<T, string>();
  const byKey = new Map<string, Set<T>>();

  function remove(item: T): boolean {
    const key = keyOf.get(item);
    if (key === undefined) return false;
    keyOf.delete(item);
    const items = byKey.get(key)!;
    items.delete(item);
    if (items.size === 0) byKey.delete(key);
    return true;
  }

  return {
    add(key, item) {
      const evicted: T[] = [];
      remove(item);
      const ofKey = byKey.get(key);
      while (ofKey && ofKey.size >= Math.max(perKey, 1)) {
        const oldest = ofKey.values().next().value as T;
        remove(oldest);
        evicted.push(oldest);
      }
      while (keyOf.size >= Math.max(total, 1)) {
        const oldest = keyOf.keys().next().value as T;
        remove(oldest);
        evicted.push(oldest);
      }
      keyOf.set(item, key);
      // The key's set may have been emptied (and dropped) by the evictions above.
      const items = byKey.get(key) ?? new Set<T>();
      items.add(item);
      byKey.set(key, items);
      return evicted;
    },
    delete: remove,
    size: () => keyOf.size,
    sizeOf: (key) => byKey.get(key)?.size ?? 0,
  };
}
