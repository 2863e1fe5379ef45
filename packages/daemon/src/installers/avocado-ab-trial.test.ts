import { describe, expect, it } from 'vitest';
import { DEFAULT_VARIABLE_NAMES as N, fallBackChanges, makePermanentChanges, startTrialChanges, trialState, type TrialRecord } from './avocado-ab-trial.ts';

const vars = (entries: Record<string, string>) => new Map(Object.entries(entries));
const record: TrialRecord = { from: 'a', to: 'b', hash: 'h', binary_prn: 'p' };

describe('trialState', () => {
  it('follows the protocol from the environment and the record', () => {
    expect(trialState(vars({ canopy_active_slot: 'a' }), N, null)).toEqual({ kind: 'none' });
    expect(trialState(vars({}), N, null)).toEqual({ kind: 'none' });
    expect(trialState(vars({ canopy_active_slot: 'b', canopy_upgrade_available: '1', canopy_boot_count: '1' }), N, record)).toEqual({ kind: 'on_trial', from: 'a', to: 'b' });
    expect(trialState(vars({ canopy_active_slot: 'b' }), N, record)).toEqual({ kind: 'confirmed', slot: 'b' });
    expect(trialState(vars({ canopy_active_slot: 'a', canopy_boot_count: '0' }), N, record)).toEqual({ kind: 'fell_back', slot: 'a', reason: 'boot_limit_reached' });
  });

  it('a trial without a record (lost, or started by hand) is the active slot on trial', () => {
    expect(trialState(vars({ canopy_active_slot: 'a', canopy_upgrade_available: '1' }), N, null)).toEqual({ kind: 'on_trial', from: 'b', to: 'a' });
  });

  it('anything else is inconsistent and goes back to the slot the record came from', () => {
    expect(trialState(vars({ canopy_active_slot: 'a', canopy_upgrade_available: '1' }), N, record)).toEqual({ kind: 'inconsistent', from: 'a' });
    expect(trialState(vars({ canopy_active_slot: 'c' }), N, record)).toEqual({ kind: 'inconsistent', from: 'a' });
    expect(trialState(vars({ canopy_active_slot: 'c', canopy_upgrade_available: '1' }), N, null)).toEqual({ kind: 'inconsistent', from: 'a' });
  });

  it('uses the configured variable names', () => {
    const names = { active_slot: 'slot', upgrade_available: 'trial', boot_count: 'tries', boot_limit: 'max' };
    expect(startTrialChanges('b', names)).toEqual({ slot: 'b', trial: '1', tries: '0' });
    expect(makePermanentChanges(names)).toEqual({ trial: null, tries: null });
    expect(fallBackChanges('a', names)).toEqual({ slot: 'a', trial: null, tries: '0' });
    expect(trialState(vars({ slot: 'b', trial: '1' }), names, record)).toEqual({ kind: 'on_trial', from: 'a', to: 'b' });
    expect(trialState(vars({ slot: 'b', canopy_upgrade_available: '1' }), names, record)).toEqual({ kind: 'confirmed', slot: 'b' });
  });
});
