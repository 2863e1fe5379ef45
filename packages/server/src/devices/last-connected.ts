/**
 * `last_connected_at`, written at most once per interval per device. The condition lives in the
 * UPDATE (lastConnectedDue: the admission's, device-api/admissions.ts, and the update check's,
 * updates/check-writes.ts), so many server processes together still write once per interval; each process also remembers its own last write to skip it entirely on busy
 * keep-alive connections.
 */
import { WriteThrottle } from '../core/write-throttle';

export const LAST_CONNECTED_INTERVAL_MS = 60_000;

/** SQL: the devices row `alias` may have its last_connected_at written now. */
export function lastConnectedDue(alias: string): string {
  const column = alias ? `${alias}.last_connected_at` : 'last_connected_at';
  return `(${column} is null or ${column} < now() - make_interval(secs => ${LAST_CONNECTED_INTERVAL_MS / 1000}))`;
}

/** Per-process memory of recent writes (core/write-throttle.ts), one minute per device. */
export class LastConnectedThrottle extends WriteThrottle {
  constructor(intervalMs = LAST_CONNECTED_INTERVAL_MS, maxEntries = 200_000) {
    super(intervalMs, maxEntries);
  }
}
