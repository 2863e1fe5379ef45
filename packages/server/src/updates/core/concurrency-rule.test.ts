import { describe, expect, it } from 'vitest';
import { capDecision, capSettingProblems, retryAfterSeconds, slotRefused } from './concurrency-rule';

describe('the concurrency cap', () => {
  it('lets a device holding a slot keep it, even with the cap full or exceeded', () => {
    expect(capDecision(2, { held: true, used: 2 }, 'd1').kind).toBe('held');
    expect(capDecision(2, { held: true, used: 5 }, 'd1').kind).toBe('held');
  });

  it('asks a device below the cap to take a slot, and tells one beyond it to come back later', () => {
    expect(capDecision(2, { held: false, used: 1 }, 'd1')).toMatchObject({ kind: 'take', detail: { max_concurrent: 2, updating: 1 } });
    const full = capDecision(2, { held: false, used: 2 }, 'd1', 40);
    expect(full.kind).toBe('full');
    if (full.kind === 'full') expect(full.retryAfterSeconds).toBe(retryAfterSeconds('d1', 40));
  });

  it('spreads retry hints over +-25% of the base, stable per device', () => {
    const hints = Array.from({ length: 200 }, (_, i) => retryAfterSeconds(`device-${i}`, 100));
    expect(Math.min(...hints)).toBeGreaterThanOrEqual(75);
    expect(Math.max(...hints)).toBeLessThanOrEqual(125);
    expect(new Set(hints).size).toBeGreaterThan(20);
    expect(retryAfterSeconds('device-7', 100)).toBe(retryAfterSeconds('device-7', 100));
    expect(retryAfterSeconds('x', 1)).toBe(1);
  });

  it('names the field of each bad setting', () => {
    expect(capSettingProblems(null, null)).toEqual([]);
    expect(capSettingProblems(500, 3600)).toEqual([]);
    expect(capSettingProblems(0, null)).toEqual([{ field: 'max_concurrent', reason: 'out_of_range' }]);
    expect(capSettingProblems(1.5, 5)).toEqual([
      { field: 'max_concurrent', reason: 'out_of_range' },
      { field: 'slot_timeout_seconds', reason: 'out_of_range' },
    ]);
  });
});

describe('slotRefused', () => {
  it('turns an offer whose slot was refused into retry_later, replacing the last step', () => {
    const offer = {
      status: 'update' as const, sourceType: 'release' as const, releaseId: 'r2', bundleId: 'b2', overrideId: null, claim: null, slot: { releaseId: 'r2' }, retryAfterSeconds: null,
      explanation: [{ step: 'concurrency' as const, outcome: 'taken' as const, reason: 'concurrency_slot_available' as const }],
    };
    const refused = slotRefused(offer, 'd1', 10);
    expect(refused).toMatchObject({ status: 'retry_later', releaseId: null, bundleId: null, slot: null, retryAfterSeconds: retryAfterSeconds('d1', 10) });
    expect(refused.explanation).toEqual([{ step: 'concurrency', subject: { type: 'release', id: 'r2' }, outcome: 'skipped', reason: 'concurrency_full', detail: { retry_after_seconds: retryAfterSeconds('d1', 10) } }]);
  });
});
