import { describe, expect, it } from 'vitest';
import { afterFailure, DEFAULT_PENALTY, FRESH, isResting, penaltySettingProblems, type PenaltyState } from './penalty-rule';

const S = 1000;
const fail = (settings = DEFAULT_PENALTY, times: number[], from: PenaltyState = FRESH) => times.reduce((state, at) => afterFailure(settings, state, at), from);

describe('penalty box', () => {
  it('boxes a device at its third failure of a release by default, for 24 h', () => {
    const two = fail(DEFAULT_PENALTY, [0, 10 * S]);
    expect(two).toEqual({ failedAt: [0, 10 * S], rests: 0, restUntil: null });
    const three = afterFailure(DEFAULT_PENALTY, two, 100_000 * S);
    expect(three).toEqual({ failedAt: [], rests: 1, restUntil: 100_000 * S + 86_400 * S });
    expect(isResting(three, 100_000 * S + 86_400 * S - 1)).toBe(true);
    expect(isResting(three, 100_000 * S + 86_400 * S)).toBe(false);
  });

  it('with a window, counts only failures that close together', () => {
    const settings = { failures: 5, windowSeconds: 180, restSeconds: 60 };
    const spread = fail(settings, [0, 100 * S, 200 * S, 300 * S, 400 * S]);
    expect(spread.restUntil).toBeNull();
    expect(spread.failedAt).toHaveLength(5);
    const burst = fail(settings, [400 * S, 450 * S, 500 * S, 550 * S], spread);
    expect(burst.restUntil).toBe(550 * S + 60 * S);
  });

  it('offers the release once more after a rest: one more failure boxes it again', () => {
    const rested = fail(DEFAULT_PENALTY, [0, 1, 2]);
    const again = afterFailure(DEFAULT_PENALTY, rested, rested.restUntil! + 5);
    expect(again).toMatchObject({ rests: 2, restUntil: rested.restUntil! + 5 + 86_400 * S });
  });

  it('refuses settings out of range, naming the field', () => {
    expect(penaltySettingProblems(null)).toEqual([]);
    expect(penaltySettingProblems({ failures: 3, window_seconds: null, rest_seconds: 60 })).toEqual([]);
    const fields = penaltySettingProblems({ failures: 0, window_seconds: 0, rest_seconds: 1.5 }).map((p) => p.field);
    expect(fields).toEqual(['penalty_box.failures', 'penalty_box.window_seconds', 'penalty_box.rest_seconds']);
  });
});
