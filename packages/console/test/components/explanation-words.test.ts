import { describe, expect, it } from 'vitest';
import { reasonInWords, statusInWords } from '../../src/features/devices/explanation-words';

const REASONS = [
  'quarantined', 'no_cohort', 'no_releases', 'override_active', 'override_not_active', 'override_superseded', 'release_header', 'bundle_header',
  'version_header', 'header_not_in_chain', 'no_position', 'required_release', 'latest_release', 'passed_over', 'at_latest', 'usable', 'disabled',
  'cancelled', 'paused', 'penalty_box', 'outside_maintenance_window', 'scheduled', 'requirement_not_met', 'phase_full', 'not_in_phase_tags',
  'phase_claimed', 'phase_slot_available', 'nothing_usable', 'unsigned_binaries', 'signed', 'already_current', 'new_for_device',
  'concurrency_slot_held', 'concurrency_slot_available', 'concurrency_full',
];

describe('the update explanation in words', () => {
  it('says every reason the server gives as a sentence, not its code', () => {
    for (const reason of REASONS) {
      const words = reasonInWords(reason, {});
      expect(words, reason).not.toContain('_');
      expect(words, reason).toMatch(/^[A-Z].*\.$/);
    }
  });

  it('puts the detail in: the rest and the window end, the cap, the version', () => {
    expect(reasonInWords('penalty_box', { rest_until: '2030-01-02T03:04:05Z' })).toContain(new Date('2030-01-02T03:04:05Z').toLocaleString());
    expect(reasonInWords('outside_maintenance_window', { next_window_at: null })).toMatch(/no window opens again/);
    expect(reasonInWords('concurrency_full', { updating: 5, max_concurrent: 5, retry_after_seconds: 60 })).toBe(
      "The release's concurrency cap is full (5 of 5 updating); the device is told to come back in 60 seconds.",
    );
    expect(reasonInWords('version_header', { version: '1.4.2' })).toContain('1.4.2');
  });

  it('shows a reason it does not know as its code in words, and the status with its source', () => {
    expect(reasonInWords('some_new_reason')).toBe('some new reason');
    expect(statusInWords('update', 'release')).toBe('Offered an update from a release');
    expect(statusInWords('update', 'bundle_override')).toBe('Offered an update from a bundle override');
    expect(statusInWords('no_update', null)).toBe('No update');
    expect(statusInWords('retry_later', null)).toMatch(/come back later/);
  });
});
