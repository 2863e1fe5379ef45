/**
 * Override windows [starts_at, ends_at), compared as RFC 3339 UTC text with microseconds, which
 * sorts like time itself (and keeps the microseconds a Date would drop). `ends_at` null: the
 * window never ends (the public API makes ends_at optional).
 */
import { parseDateTime, toRfc3339 } from '../core/time';

export interface Window {
  startsAt: string;
  endsAt: string | null;
}

/** The latest instant a Date holds: an open-ended window's end where a Date is needed. */
export const OPEN_END = new Date(8_640_000_000_000_000);

/** A stored ends_at as a Date (resolution compares Dates): null is OPEN_END. */
export function endAsDate(endsAt: string | null): Date {
  return endsAt === null ? OPEN_END : new Date(endsAt);
}

/** A request's date-time in the sortable UTC form, or null when it is not one. */
export function normaliseInstant(value: string): string | null {
  const parsed = parseDateTime(value);
  return parsed === null ? null : toRfc3339(parsed);
}

export function isValidWindow(window: Window): boolean {
  return window.endsAt === null || toRfc3339(window.startsAt) < toRfc3339(window.endsAt);
}

/** `a` starts before `b` ends (an open end is after everything). */
function startsBeforeEnd(a: Window, b: Window): boolean {
  return b.endsAt === null || toRfc3339(a.startsAt) < toRfc3339(b.endsAt);
}

/**
 * Two half-open windows share at least one instant. Windows that only touch (one ends as the
 * other starts) do not overlap: a device can move from one override straight into the next.
 */
export function windowsOverlap(a: Window, b: Window): boolean {
  return startsBeforeEnd(a, b) && startsBeforeEnd(b, a);
}
