import { describe, expect, it } from 'vitest';
import { controlOutcome, type ControlState } from './control-rules';

const running: ControlState = { paused: false, halted: false, cancelled: false };

describe('release controls', () => {
  it('pauses a running release once', () => {
    expect(controlOutcome('pause', running)).toEqual({ kind: 'change', change: { setPaused: true } });
    expect(controlOutcome('pause', { ...running, paused: true })).toEqual({ kind: 'unchanged' });
  });

  it('resumes a pause, a halt or both, and leaves a running release alone', () => {
    expect(controlOutcome('resume', { ...running, paused: true })).toEqual({ kind: 'change', change: { setPaused: false } });
    expect(controlOutcome('resume', { ...running, halted: true })).toEqual({ kind: 'change', change: { clearHalt: true } });
    expect(controlOutcome('resume', { ...running, paused: true, halted: true })).toEqual({ kind: 'change', change: { setPaused: false, clearHalt: true } });
    expect(controlOutcome('resume', running)).toEqual({ kind: 'unchanged' });
  });

  it('cancels once, for good: pause and resume are refused afterwards', () => {
    expect(controlOutcome('cancel', { ...running, paused: true })).toEqual({ kind: 'change', change: { setCancelled: true } });
    const cancelled = { ...running, cancelled: true };
    expect(controlOutcome('cancel', cancelled)).toEqual({ kind: 'unchanged' });
    expect(controlOutcome('pause', cancelled)).toEqual({ kind: 'refused', reason: 'release_cancelled' });
    expect(controlOutcome('resume', { ...cancelled, halted: true })).toEqual({ kind: 'refused', reason: 'release_cancelled' });
  });
});
