import { describe, expect, it } from 'vitest';
import { insideWindows, nextWindowStart, windowProblems, type MaintenanceWindow } from './window-rule';

const nightly: MaintenanceWindow = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '04:00', time_zone: 'Europe/Berlin' };
const at = (iso: string) => Date.parse(iso);

describe('maintenance windows', () => {
  it('treats null as always open', () => {
    expect(insideWindows(null, at('2026-11-28T12:00:00Z'))).toBe(true);
  });

  it('opens a window that crosses midnight on its start day and the morning after', () => {
    // Berlin is UTC+1 in November. Friday 22:30 local, Saturday 03:59 local: inside.
    expect(insideWindows([nightly], at('2026-11-27T21:30:00Z'))).toBe(true);
    expect(insideWindows([nightly], at('2026-11-28T02:59:00Z'))).toBe(true);
    // Saturday 04:00 local (end is exclusive) and Saturday 22:30 local: outside.
    expect(insideWindows([nightly], at('2026-11-28T03:00:00Z'))).toBe(false);
    expect(insideWindows([nightly], at('2026-11-28T21:30:00Z'))).toBe(false);
    // Monday 01:00 local: Sunday was not listed.
    expect(insideWindows([nightly], at('2026-11-30T00:00:00Z'))).toBe(false);
  });

  it('follows the zone across daylight saving', () => {
    const morning: MaintenanceWindow = { days: ['sun'], start: '09:00', end: '10:00', time_zone: 'America/New_York' };
    expect(insideWindows([morning], at('2026-03-01T14:30:00Z'))).toBe(true); // EST, 09:30
    expect(insideWindows([morning], at('2026-03-15T13:30:00Z'))).toBe(true); // EDT, 09:30
    expect(insideWindows([morning], at('2026-03-15T14:30:00Z'))).toBe(false);
  });

  it('finds the next window start', () => {
    // Saturday noon UTC: next opening is Monday 22:00 Berlin = 21:00 UTC.
    expect(new Date(nextWindowStart([nightly], at('2026-11-28T12:00:00Z'))!).toISOString()).toBe('2026-11-30T21:00:00.000Z');
  });

  it('names each bad part', () => {
    expect(windowProblems([{ days: ['mon', 'funday'], start: '24:00', end: '7:00', time_zone: 'Mars/Olympus' }]).map((p) => p.field)).toEqual([
      'maintenance_windows[0].days',
      'maintenance_windows[0].start',
      'maintenance_windows[0].end',
      'maintenance_windows[0].time_zone',
    ]);
    expect(windowProblems([])[0].field).toBe('maintenance_windows');
    expect(windowProblems([{ days: ['sun'], start: '01:00', end: '01:00', time_zone: 'UTC' }])[0].field).toBe('maintenance_windows[0].end');
    expect(windowProblems([nightly])).toEqual([]);
    expect(windowProblems(null)).toEqual([]);
  });
});
