/**
 * Maintenance windows (site/docs/canopy-core/guides/rolling-out-safely.md): the weekly times
 * a release may be offered to devices that do not hold it yet. A window is local to its IANA
 * time zone (Intl, so daylight saving is the zone's own); `end` <= `start` crosses midnight and
 * belongs to the day it starts on. Pure: `now` is passed in.
 */

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

export interface MaintenanceWindow {
  days: string[];
  start: string;
  end: string;
  time_zone: string;
}

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;
const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

const partsCache = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = partsCache.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', weekday: 'short', hour: '2-digit', minute: '2-digit' });
    partsCache.set(timeZone, format);
  }
  return format;
}

/** The last answer per zone: every check within one UTC minute asks the same (offsets are whole minutes). */
const lastLocal = new Map<string, { utcMinute: number; day: number; minute: number }>();

/** Day index (0 = mon) and minute of the day at `at` in the zone. */
function localTime(at: number, timeZone: string): { day: number; minute: number } {
  const utcMinute = Math.floor(at / 60_000);
  const last = lastLocal.get(timeZone);
  if (last !== undefined && last.utcMinute === utcMinute) return last;
  const parts = formatter(timeZone).formatToParts(at);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  const day = DAYS.indexOf(get('weekday').toLowerCase().slice(0, 3) as Day);
  const local = { utcMinute, day, minute: Number(get('hour')) * 60 + Number(get('minute')) };
  if (lastLocal.size > 1000) lastLocal.clear();
  lastLocal.set(timeZone, local);
  return local;
}

function insideOne(window: MaintenanceWindow, at: number): boolean {
  const { day, minute } = localTime(at, window.time_zone);
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const has = (index: number) => window.days.includes(DAYS[(index + 7) % 7]);
  if (start < end) return has(day) && minute >= start && minute < end;
  // Crosses midnight: the evening of a listed day, or the morning after one.
  return (has(day) && minute >= start) || (has(day - 1) && minute < end);
}

/** True when there are no windows (null) or `at` falls inside one of them. */
export function insideWindows(windows: readonly MaintenanceWindow[] | null, at: number): boolean {
  return windows === null || windows.some((window) => insideOne(window, at));
}

/**
 * The next time (ms) a window opens after `at`, to the minute; null if none within 8 days.
 * Walks minute by minute boundaries a zone can shift (DST), so it steps one minute at a time
 * from the next whole minute: at most 11 520 formatter calls, only on the explain path.
 */
export function nextWindowStart(windows: readonly MaintenanceWindow[], at: number): number | null {
  let t = Math.floor(at / 60_000) * 60_000 + 60_000;
  const limit = at + 8 * 86_400_000;
  let wasInside = insideWindows(windows, at);
  for (; t <= limit; t += 60_000) {
    const inside = insideWindows(windows, t);
    if (inside && !wasInside) return t;
    wasInside = inside;
  }
  return null;
}

/** Field problems of `maintenance_windows` as given (422); `field` is the body's field name. */
export function windowProblems(value: unknown, field = 'maintenance_windows'): { field: string; reason: string; allowed: string }[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.length === 0 || value.length > 20) return [{ field, reason: 'invalid', allowed: 'null, or an array of 1..20 windows' }];
  const problems: { field: string; reason: string; allowed: string }[] = [];
  value.forEach((window: Partial<Record<keyof MaintenanceWindow, unknown>>, i) => {
    const at = `${field}[${i}]`;
    if (typeof window !== 'object' || window === null) {
      problems.push({ field: at, reason: 'invalid', allowed: 'an object {days, start, end, time_zone}' });
      return;
    }
    const days = window.days;
    if (!Array.isArray(days) || days.length === 0 || days.some((d) => !DAYS.includes(d)) || new Set(days).size !== days.length)
      problems.push({ field: `${at}.days`, reason: 'invalid', allowed: `distinct days of ${DAYS.join(', ')}` });
    for (const key of ['start', 'end'] as const)
      if (typeof window[key] !== 'string' || !CLOCK.test(window[key] as string)) problems.push({ field: `${at}.${key}`, reason: 'invalid', allowed: 'HH:MM, 00:00..23:59' });
    if (typeof window.start === 'string' && window.start === window.end) problems.push({ field: `${at}.end`, reason: 'invalid', allowed: 'a time other than start' });
    if (typeof window.time_zone !== 'string' || !validZone(window.time_zone)) problems.push({ field: `${at}.time_zone`, reason: 'invalid', allowed: 'an IANA time zone, e.g. Europe/Berlin' });
    const extra = Object.keys(window).filter((key) => !['days', 'start', 'end', 'time_zone'].includes(key));
    if (extra.length > 0) problems.push({ field: `${at}.${extra[0]}`, reason: 'unknown_field', allowed: 'days, start, end, time_zone' });
  });
  return problems;
}

function validZone(zone: string): boolean {
  try {
    formatter(zone);
    return zone.length > 0;
  } catch {
    return false;
  }
}
