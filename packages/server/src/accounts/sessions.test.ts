import { describe, expect, it } from 'vitest';
import { newSessionExpiries, renewalIntervalMs } from './sessions';

describe('session lifetimes', () => {
  it('start with the idle timeout, never past the maximum lifetime', () => {
    const now = Date.parse('2025-06-11T05:00:00Z');
    expect(newSessionExpiries({ idleSeconds: 12 * 3600, maxSeconds: 7 * 86400 }, now)).toEqual({ expiresAt: '2025-06-11T17:00:00.000Z', endsAt: '2025-06-18T05:00:00.000Z' });
    expect(newSessionExpiries({ idleSeconds: 3600, maxSeconds: 3600 }, now)).toEqual({ expiresAt: '2025-06-11T06:00:00.000Z', endsAt: '2025-06-11T06:00:00.000Z' });
  });

  it('renew at most once per interval: a tenth of the idle timeout, never over a minute', () => {
    expect(renewalIntervalMs({ idleSeconds: 12 * 3600, maxSeconds: 7 * 86400 })).toBe(60_000);
    expect(renewalIntervalMs({ idleSeconds: 120, maxSeconds: 3600 })).toBe(12_000);
  });
});
