/**
 * Override windows [starts_at, ends_at), compared as RFC 3339 UTC text with microseconds, which
 * sorts like time itself (and keeps the microseconds a Date would drop).
 */
import { parseDateTime, toRfc3339 } from '../http/time';

export interface Window {
  startsAt: string;
  endsAt: string;
}

/** A request's date-time in the sortable UTC form, or null when it is not one. */
export function normaliseInstant(value: string): string | null {
  const parsed = parseDateTime(value);
  return parsed === null ? null : toRfc3339(parsed);
}

export function isValidWindow(window: Window): boolean {
  return toRfc3339(window.startsAt) < toRfc3339(window.endsAt);
}

/**
 * Two half-open windows share at least one instant. Windows that only touch (one ends as the
 * other starts) do not overlap: a device can move from one override straight into the next.
 */
export function windowsOverlap(a: Window, b: Window): boolean {
  return toRfc3339(a.startsAt) < toRfc3339(b.endsAt) && toRfc3339(b.startsAt) < toRfc3339(a.endsAt);
}
