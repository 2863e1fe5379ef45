import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPhased, phaseSlots, resolveUpdate } from './resolution';
import type { ChainRelease, PhaseClaimState, ResolutionInput } from './resolution-types';

const NOW = new Date('2025-06-11T12:00:00Z');
const HOUR = 3_600_000;

function release(id: string, fields: Partial<ChainRelease> = {}): ChainRelease {
  return {
    id,
    bundleId: `b-${id}`,
    required: false,
    disabled: false,
    paused: false,
    cancelled: false,
    scheduleDate: null,
    versionRequirement: null,
    version: null,
    phaseMode: 'numeric',
    phaseValue: 1,
    phaseTags: null,
    maintenanceWindows: null,
    maxConcurrent: null,
    ...fields,
  };
}

const noClaims: PhaseClaimState = { deviceHasClaim: false, claimCount: 0, cohortDeviceCount: 100 };

type InputOverrides = Partial<Omit<ResolutionInput, 'device'>> & { device?: Partial<ResolutionInput['device']> };

function input(fields: InputOverrides = {}): ResolutionInput {
  const { device, ...rest } = fields;
  return {
    headers: {},
    chain: [release('r1'), release('r2'), release('r3')],
    overrides: [],
    bundleSigned: () => true,
    phaseClaims: () => noClaims,
    now: NOW,
    ...rest,
    device: {
      id: 'd1',
      quarantined: false,
      cohortId: 'c1',
      tags: null,
      reportedReleaseId: null,
      reportedBundleId: null,
      ...device,
    },
  };
}

const reasons = (result: ReturnType<typeof resolveUpdate>) => result.explanation.map((s) => `${s.step}:${s.reason}`);

describe('phaseSlots', () => {
  it.each([
    [1, 100, Number.POSITIVE_INFINITY],
    [0, 100, 0],
    [0.1, 100_000, 10_000],
    [0.29, 100, 29],
    [0.07, 100, 7],
    [0.5, 3, 1],
    [0.01, 50, 1],
    [0.5, 0, 0],
    [2, 10, 2],
    [500, 10, 500],
    [1_000_000_000, 10, 1_000_000_000],
    [1.5, 10, 0],
    [-0.1, 10, 0],
    [1_000_000_001, 10, 0],
    [Number.NaN, 10, 0],
    [null, 10, 0],
  ] as const)('phaseSlots(%s, %s) = %s', (value, count, expected) => {
    expect(phaseSlots(value, count)).toBe(expected);
  });

  it('never exceeds the fraction except for the at-least-one rule', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.integer({ min: 0, max: 1_000_000 }), (value, count) => {
        const slots = phaseSlots(value, count);
        expect(Number.isInteger(slots)).toBe(true);
        if (value === 0 || count === 0) expect(slots).toBe(0);
        else expect(slots).toBeLessThanOrEqual(Math.max(1, value * count + 1e-6));
      }),
    );
  });
});

describe('isPhased', () => {
  it.each([
    ['numeric', 1, false],
    ['numeric', null, false],
    ['numeric', 0.5, true],
    ['numeric', 0, true],
    ['numeric', 10, true],
    ['tags', null, true],
    ['tags', 0.2, true],
    ['tags', 1, false],
  ] as const)('%s %s -> %s', (phaseMode, phaseValue, expected) => {
    expect(isPhased({ phaseMode, phaseValue })).toBe(expected);
  });
});

describe('resolveUpdate: gatekeeping', () => {
  it('answers device_quarantine for a quarantined device, before anything else', () => {
    const result = resolveUpdate(input({ device: { quarantined: true }, overrides: [{ id: 'o1', bundleId: 'bo', startsAt: new Date(0), endsAt: new Date(NOW.getTime() + HOUR) }] }));
    expect(result).toMatchObject({ status: 'device_quarantine', sourceType: null, releaseId: null, bundleId: null, claim: null });
    expect(reasons(result)).toEqual(['quarantine:quarantined']);
  });

  it('answers no_update for a device without a cohort', () => {
    const result = resolveUpdate(input({ device: { cohortId: null } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toEqual(['cohort:no_cohort']);
  });

  it('answers no_update for an empty chain', () => {
    const result = resolveUpdate(input({ chain: [] }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toEqual(['cohort:no_releases']);
  });
});

describe('resolveUpdate: bundle overrides', () => {
  const window = (id: string, startOffset: number, endOffset: number, bundleId = `bo-${id}`) => ({
    id,
    bundleId,
    startsAt: new Date(NOW.getTime() + startOffset),
    endsAt: new Date(NOW.getTime() + endOffset),
  });

  it('an active override beats every release', () => {
    const result = resolveUpdate(input({ overrides: [window('o1', -HOUR, HOUR)] }));
    expect(result).toMatchObject({ status: 'update', sourceType: 'bundle_override', bundleId: 'bo-o1', overrideId: 'o1', releaseId: null, claim: null });
    expect(reasons(result)).toEqual(['override:override_active', 'bundle_signed:signed', 'already_current:new_for_device']);
  });

  it('the most recently started active override wins; inactive ones are skipped', () => {
    const result = resolveUpdate(
      input({ overrides: [window('old', -2 * HOUR, HOUR), window('new', -HOUR, HOUR), window('future', HOUR, 2 * HOUR), window('past', -3 * HOUR, -HOUR)] }),
    );
    expect(result.overrideId).toBe('new');
    expect(result.explanation.filter((s) => s.step === 'override').map((s) => [s.subject?.id, s.reason])).toEqual([
      ['old', 'override_superseded'],
      ['new', 'override_active'],
      ['future', 'override_not_active'],
      ['past', 'override_not_active'],
    ]);
  });

  it('the window is starts_at <= now < ends_at', () => {
    expect(resolveUpdate(input({ overrides: [window('o', 0, HOUR)] })).overrideId).toBe('o');
    expect(resolveUpdate(input({ overrides: [window('o', -HOUR, 0)] })).sourceType).toBe('release');
  });

  it('an override with unsigned binaries answers no_update (no fallback to releases)', () => {
    const result = resolveUpdate(input({ overrides: [window('o1', -HOUR, HOUR)], bundleSigned: (id) => id !== 'bo-o1' }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toContain('bundle_signed:unsigned_binaries');
  });

  it('a device already on the override bundle gets no_update', () => {
    const result = resolveUpdate(input({ overrides: [window('o1', -HOUR, HOUR)], headers: { bundleId: 'bo-o1' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toContain('already_current:already_current');
    const stored = resolveUpdate(input({ overrides: [window('o1', -HOUR, HOUR)], device: { reportedBundleId: 'bo-o1' } }));
    expect(stored.status).toBe('no_update');
  });
});

describe('resolveUpdate: position', () => {
  it('no position and no headers: walks from the first release to the latest', () => {
    const result = resolveUpdate(input());
    expect(result).toMatchObject({ status: 'update', sourceType: 'release', releaseId: 'r3', bundleId: 'b-r3' });
    expect(reasons(result)).toEqual([
      'position:no_position',
      'walk_forward:passed_over',
      'walk_forward:passed_over',
      'walk_forward:latest_release',
      'walk_backward:usable',
      'bundle_signed:signed',
      'already_current:new_for_device',
    ]);
  });

  it('by the release header: the walk starts after the device release', () => {
    const chain = [release('r1'), release('r2', { required: true }), release('r3')];
    expect(resolveUpdate(input({ chain })).releaseId).toBe('r2');
    const result = resolveUpdate(input({ chain, headers: { releaseId: 'r2' } }));
    expect(result.releaseId).toBe('r3');
    expect(result.explanation[0]).toMatchObject({ step: 'position', reason: 'release_header', subject: { id: 'r2' }, detail: { source: 'header' } });
  });

  it('by the stored reported release when no header is sent', () => {
    const chain = [release('r1'), release('r2', { required: true }), release('r3')];
    const result = resolveUpdate(input({ chain, device: { reportedReleaseId: 'r2' } }));
    expect(result.releaseId).toBe('r3');
    expect(result.explanation[0]).toMatchObject({ reason: 'release_header', detail: { source: 'stored' } });
  });

  it('a release header of another cohort is ignored, falling through to the next header', () => {
    const chain = [release('r1'), release('r2', { required: true }), release('r3')];
    const result = resolveUpdate(input({ chain, headers: { releaseId: 'elsewhere', bundleId: 'b-r2' } }));
    expect(reasons(result).slice(0, 2)).toEqual(['position:header_not_in_chain', 'position:bundle_header']);
    expect(result.releaseId).toBe('r3');
    const alone = resolveUpdate(input({ chain, headers: { releaseId: 'elsewhere' } }));
    expect(reasons(alone).slice(0, 2)).toEqual(['position:header_not_in_chain', 'position:no_position']);
    expect(alone.releaseId).toBe('r2');
  });

  it('by the bundle header: the latest release carrying that bundle', () => {
    const chain = [release('r1', { bundleId: 'shared' }), release('r2', { required: true }), release('r3', { bundleId: 'shared' }), release('r4')];
    const result = resolveUpdate(input({ chain, headers: { bundleId: 'shared' } }));
    expect(result.explanation[0]).toMatchObject({ reason: 'bundle_header', subject: { id: 'r3' } });
    expect(result.releaseId).toBe('r4');
  });

  it('by the version header: the lowest release whose requirement the version satisfies', () => {
    const chain = [
      release('r1', { versionRequirement: '< 1.0.0' }),
      release('r2', { versionRequirement: '~> 1.0', required: true }),
      release('r3', { versionRequirement: '>= 2.0.0', required: true }),
      release('r4'),
    ];
    const result = resolveUpdate(input({ chain, headers: { releaseVersion: '1.4.0' } }));
    expect(result.explanation[0]).toMatchObject({ reason: 'version_header', subject: { id: 'r2' } });
    expect(result.releaseId).toBe('r2');
    const later = resolveUpdate(input({ chain, headers: { releaseVersion: '2.1.0' } }));
    expect(later.releaseId).toBe('r3');
  });

  it('an invalid or unmatched version header gives no position', () => {
    const chain = [release('r1', { versionRequirement: '< 1.0.0' }), release('r2')];
    for (const releaseVersion of ['not-a-version', '1.0']) {
      const result = resolveUpdate(input({ chain, headers: { releaseVersion } }));
      expect(reasons(result).slice(0, 2)).toEqual(['position:header_not_in_chain', 'position:no_position']);
    }
  });

  it('a device on the latest release gets no_update', () => {
    const result = resolveUpdate(input({ headers: { releaseId: 'r3' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toEqual(['position:release_header', 'walk_forward:at_latest']);
  });
});

describe('resolveUpdate: walking forward', () => {
  it('stops at the first required release', () => {
    const chain = [release('r1'), release('r2', { required: true }), release('r3', { required: true }), release('r4')];
    const result = resolveUpdate(input({ chain }));
    expect(result.releaseId).toBe('r2');
    expect(reasons(result)).toContain('walk_forward:required_release');
  });

  it('passes the required release the device is on', () => {
    const chain = [release('r1', { required: true }), release('r2'), release('r3')];
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r1' } })).releaseId).toBe('r3');
  });
});

describe('resolveUpdate: walking backward', () => {
  it('skips a disabled release', () => {
    const chain = [release('r1'), release('r2'), release('r3', { disabled: true })];
    const result = resolveUpdate(input({ chain }));
    expect(result.releaseId).toBe('r2');
    expect(result.explanation.find((s) => s.subject?.id === 'r3' && s.step === 'walk_backward')).toMatchObject({ outcome: 'skipped', reason: 'disabled' });
  });

  it('skips a cancelled release for every device, as it skips a disabled one', () => {
    const chain = [release('r1'), release('r2'), release('r3', { cancelled: true })];
    const result = resolveUpdate(input({ chain, headers: { releaseId: 'r2' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toContain('walk_backward:cancelled');
    expect(resolveUpdate(input({ chain })).releaseId).toBe('r2');
  });

  it('skips a paused release, except for a device already holding a slot of its phase', () => {
    const paused = release('r3', { paused: true, phaseValue: 10 });
    const chain = [release('r1'), release('r2'), paused];
    const fresh = resolveUpdate(input({ chain, headers: { releaseId: 'r2' }, phaseClaims: () => ({ ...noClaims, claimCount: 0 }) }));
    expect(fresh.status).toBe('no_update');
    expect(reasons(fresh)).toContain('walk_backward:paused');
    const holder = resolveUpdate(input({ chain, headers: { releaseId: 'r2' }, phaseClaims: () => ({ ...noClaims, deviceHasClaim: true, claimCount: 1 }) }));
    expect(holder).toMatchObject({ status: 'update', releaseId: 'r3', claim: null });
    const unphased = resolveUpdate(input({ chain: [release('r1'), release('r2', { paused: true })], headers: { releaseId: 'r1' } }));
    expect(unphased.status).toBe('no_update');
  });

  it('skips a release the device rests from (penalty box) until the rest ends, saying until when', () => {
    const chain = [release('r1'), release('r2')];
    const restUntil = new Map([['r2', NOW.getTime() + HOUR]]);
    const resting = resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, restUntil }));
    expect(resting.status).toBe('no_update');
    expect(resting.explanation.find((s) => s.reason === 'penalty_box')).toMatchObject({ subject: { id: 'r2' }, detail: { rest_until: new Date(NOW.getTime() + HOUR).toISOString() } });
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, restUntil, now: new Date(NOW.getTime() + HOUR) })).releaseId).toBe('r2');
  });

  it('offers no new release outside its maintenance windows, saying when the next opens; a slot holder still gets it', () => {
    const windows = [{ days: ['wed'], start: '13:00', end: '14:00', time_zone: 'UTC' }]; // NOW is Wednesday 12:00 UTC
    const chain = [release('r1'), release('r2', { maintenanceWindows: windows })];
    const closed = resolveUpdate(input({ chain, headers: { releaseId: 'r1' } }));
    expect(closed.status).toBe('no_update');
    expect(closed.explanation.find((s) => s.reason === 'outside_maintenance_window')).toMatchObject({ subject: { id: 'r2' }, outcome: 'skipped', detail: { next_window_at: '2025-06-11T13:00:00.000Z' } });
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, now: new Date('2025-06-11T13:00:00Z') })).releaseId).toBe('r2');
    const phased = [release('r1'), release('r2', { maintenanceWindows: windows, phaseValue: 0.5 })];
    const holder = resolveUpdate(input({ chain: phased, headers: { releaseId: 'r1' }, phaseClaims: () => ({ ...noClaims, deviceHasClaim: true, claimCount: 1 }) }));
    expect(holder.releaseId).toBe('r2');
    expect(resolveUpdate(input({ chain: phased, headers: { releaseId: 'r1' } })).status).toBe('no_update');
  });

  it('asks for a slot of a capped release below its cap, answers retry_later beyond it, keeps a held slot', () => {
    const chain = [release('r1'), release('r2', { maxConcurrent: 2 })];
    const room = resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, slots: () => ({ held: false, used: 1 }) }));
    expect(room).toMatchObject({ status: 'update', releaseId: 'r2', slot: { releaseId: 'r2' } });
    expect(reasons(room).at(-1)).toBe('concurrency:concurrency_slot_available');
    const full = resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, slots: () => ({ held: false, used: 2 }), retryBaseSeconds: 40 }));
    expect(full).toMatchObject({ status: 'retry_later', releaseId: null, bundleId: null, slot: null });
    expect(full.retryAfterSeconds).toBeGreaterThanOrEqual(30);
    expect(full.explanation.at(-1)).toMatchObject({ reason: 'concurrency_full', detail: { max_concurrent: 2, updating: 2, retry_after_seconds: full.retryAfterSeconds } });
    const held = resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, slots: () => ({ held: true, used: 2 }) }));
    expect(held).toMatchObject({ status: 'update', releaseId: 'r2', slot: null });
    // A device already on the capped release needs no slot, full or not.
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r2' }, slots: () => ({ held: false, used: 2 }) })).status).toBe('no_update');
  });

  it('keeps offering a paused or closed-window release to a device holding its cap slot', () => {
    const chain = [release('r1'), release('r2', { maxConcurrent: 2, paused: true })];
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, slots: () => ({ held: true, used: 2 }) })).releaseId).toBe('r2');
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r1' }, slots: () => ({ held: false, used: 0 }) })).status).toBe('no_update');
  });

  it('skips a release before its schedule date, takes it at the date', () => {
    const chain = [release('r1'), release('r2', { scheduleDate: new Date(NOW.getTime() + 1) })];
    const early = resolveUpdate(input({ chain }));
    expect(early.releaseId).toBe('r1');
    expect(reasons(early)).toContain('walk_backward:scheduled');
    expect(resolveUpdate(input({ chain, now: new Date(NOW.getTime() + 1) })).releaseId).toBe('r2');
  });

  it('skips a release whose version requirement is not met', () => {
    const chain = [release('r1', { version: '1.0.0' }), release('r2', { versionRequirement: '>= 2.0.0' })];
    const result = resolveUpdate(input({ chain, headers: { releaseVersion: '1.5.0' } }));
    expect(result.releaseId).toBe('r1');
    expect(result.explanation.find((s) => s.reason === 'requirement_not_met')?.detail).toMatchObject({ why: 'not_satisfied' });
    expect(resolveUpdate(input({ chain, headers: { releaseVersion: '2.0.0' } })).releaseId).toBe('r2');
  });

  it('checks requirements against the version of the release the device is on when no version header is sent', () => {
    const chain = [release('r1', { version: '2.0.0' }), release('r2', { versionRequirement: '~> 2.0' })];
    expect(resolveUpdate(input({ chain, headers: { releaseId: 'r1' } })).releaseId).toBe('r2');
    const older = [release('r1', { version: '1.0.0' }), release('r2', { versionRequirement: '~> 2.0' })];
    const result = resolveUpdate(input({ chain: older, headers: { releaseId: 'r1' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toEqual(['position:release_header', 'walk_forward:latest_release', 'walk_backward:requirement_not_met', 'walk_backward:nothing_usable']);
  });

  it('a requirement with no known device version, or an invalid requirement, is not met', () => {
    const noVersion = resolveUpdate(input({ chain: [release('r1', { versionRequirement: '>= 1.0.0' })] }));
    expect(noVersion.status).toBe('no_update');
    expect(noVersion.explanation.find((s) => s.reason === 'requirement_not_met')?.detail).toMatchObject({ why: 'no_device_version' });
    const invalid = resolveUpdate(input({ chain: [release('r1', { versionRequirement: '>= 1.0' })], headers: { releaseVersion: '1.0.0' } }));
    expect(invalid.explanation.find((s) => s.reason === 'requirement_not_met')?.detail).toMatchObject({ why: 'invalid_requirement' });
  });

  it('never walks back below the device position (no downgrade)', () => {
    const chain = [release('r1'), release('r2'), release('r3', { disabled: true })];
    const result = resolveUpdate(input({ chain, headers: { releaseId: 'r2' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result)).toEqual(['position:release_header', 'walk_forward:latest_release', 'walk_backward:disabled', 'walk_backward:nothing_usable']);
  });
});

describe('resolveUpdate: phases', () => {
  const phased = (fields: Partial<ChainRelease> = {}) => [release('r1'), release('r2', { phaseValue: 0.1, ...fields })];

  it('a device with a free slot takes the phased release and must claim it', () => {
    const result = resolveUpdate(input({ chain: phased(), phaseClaims: () => ({ deviceHasClaim: false, claimCount: 9, cohortDeviceCount: 100 }) }));
    expect(result).toMatchObject({ status: 'update', releaseId: 'r2', claim: { releaseId: 'r2' } });
    expect(result.explanation.find((s) => s.reason === 'phase_slot_available')?.detail).toMatchObject({ slots: 10, claims: 9 });
  });

  it('a full phase is skipped', () => {
    const result = resolveUpdate(input({ chain: phased(), phaseClaims: () => ({ deviceHasClaim: false, claimCount: 10, cohortDeviceCount: 100 }) }));
    expect(result).toMatchObject({ status: 'update', releaseId: 'r1', claim: null });
    expect(reasons(result)).toContain('walk_backward:phase_full');
  });

  it('a device holding a claim keeps it, even when the phase is full', () => {
    const result = resolveUpdate(input({ chain: phased(), phaseClaims: () => ({ deviceHasClaim: true, claimCount: 10, cohortDeviceCount: 100 }) }));
    expect(result).toMatchObject({ status: 'update', releaseId: 'r2', claim: null });
    expect(reasons(result)).toContain('walk_backward:phase_claimed');
  });

  it('an absolute device count is honoured', () => {
    const chain = phased({ phaseValue: 2 });
    expect(resolveUpdate(input({ chain, phaseClaims: () => ({ ...noClaims, claimCount: 1 }) })).claim).toEqual({ releaseId: 'r2' });
    expect(resolveUpdate(input({ chain, phaseClaims: () => ({ ...noClaims, claimCount: 2 }) })).releaseId).toBe('r1');
  });

  it('tags mode needs one shared tag and takes no claim', () => {
    const chain = phased({ phaseMode: 'tags', phaseValue: null, phaseTags: ['beta', 'lab'] });
    const inTags = resolveUpdate(input({ chain, device: { tags: ['lab'] } }));
    expect(inTags).toMatchObject({ releaseId: 'r2', claim: null });
    const outside = resolveUpdate(input({ chain, device: { tags: ['prod'] } }));
    expect(outside.releaseId).toBe('r1');
    expect(reasons(outside)).toContain('walk_backward:not_in_phase_tags');
    expect(resolveUpdate(input({ chain, device: { tags: null } })).releaseId).toBe('r1');
  });

  it('a completed phase (1) needs no claim and does not ask for claim state', () => {
    const result = resolveUpdate(input({ chain: phased({ phaseValue: 1 }), phaseClaims: () => { throw new Error('must not be asked'); } }));
    expect(result).toMatchObject({ releaseId: 'r2', claim: null });
  });

  it('no claim when the phased release is then refused (unsigned or already current)', () => {
    const unsigned = resolveUpdate(input({ chain: phased(), bundleSigned: (id) => id !== 'b-r2' }));
    expect(unsigned).toMatchObject({ status: 'no_update', claim: null });
    const current = resolveUpdate(input({ chain: phased(), headers: { bundleId: 'b-r2' }, device: { reportedReleaseId: 'r1' } }));
    expect(current).toMatchObject({ status: 'no_update', claim: null });
  });
});

describe('resolveUpdate: final checks', () => {
  it('a release with unsigned binaries answers no_update (no further walking back)', () => {
    const result = resolveUpdate(input({ bundleSigned: (id) => id !== 'b-r3' }));
    expect(result.status).toBe('no_update');
    expect(reasons(result).slice(-1)).toEqual(['bundle_signed:unsigned_binaries']);
  });

  it('a device already reporting the bundle gets no_update', () => {
    const chain = [release('r1'), release('r2', { bundleId: 'same' }), release('r3', { bundleId: 'same' })];
    const result = resolveUpdate(input({ chain, device: { reportedReleaseId: 'r2', reportedBundleId: 'same' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result).slice(-1)).toEqual(['already_current:already_current']);
  });

  it('a device reporting the same version as the resolved release gets no_update', () => {
    const chain = [release('r1', { version: '1.0.0' }), release('r2', { version: '2.0.0' })];
    const result = resolveUpdate(input({ chain, headers: { releaseVersion: '2.0.0' } }));
    expect(result.status).toBe('no_update');
    expect(reasons(result).slice(-1)).toEqual(['already_current:already_current']);
    expect(resolveUpdate(input({ chain, headers: { releaseVersion: '1.0.0' } })).releaseId).toBe('r2');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const TAGS = ['a', 'b', 'c'];
const VERSIONS = ['1.0.0', '1.5.0', '2.0.0', '2.1.0-rc.1', '3.0.0'];

/** True about one time in `n`: keeps rare branches present without drowning the common ones. */
const oneIn = (n: number) => fc.integer({ min: 1, max: n }).map((x) => x === 1);

const releaseArbitrary = (index: number): fc.Arbitrary<ChainRelease> =>
  fc.record({
    id: fc.constant(`r${index}`),
    bundleId: fc.constantFrom(`b${index}`, `b${index}`, `b${index}`, 'shared'),
    required: oneIn(4),
    disabled: oneIn(6),
    paused: oneIn(8),
    cancelled: oneIn(10),
    scheduleDate: fc.option(fc.integer({ min: -2, max: 2 }).map((h) => new Date(NOW.getTime() + h * HOUR)), { freq: 4 }),
    versionRequirement: fc.option(fc.constantFrom('>= 1.0.0', '~> 1.0', '< 2.0.0', '>= 2.0.0', 'nonsense'), { freq: 3 }),
    version: fc.option(fc.constantFrom(...VERSIONS)),
    phaseMode: fc.constantFrom('numeric' as const, 'numeric' as const, 'tags' as const),
    phaseValue: fc.constantFrom(1, 1, 1, 0, 0.1, 0.5, 3, null),
    phaseTags: fc.option(fc.subarray(TAGS)),
    maintenanceWindows: fc.constantFrom(null, null, null, [{ days: ['wed'], start: '11:00', end: '13:00', time_zone: 'UTC' }], [{ days: ['wed'], start: '13:00', end: '14:00', time_zone: 'UTC' }]),
    maxConcurrent: fc.constantFrom(null, null, null, 1),
  });

const chainArbitrary = fc.integer({ min: 0, max: 7 }).chain((length) => fc.tuple(...Array.from({ length }, (_, i) => releaseArbitrary(i))));

const scenario = chainArbitrary.chain((chain) => {
  const releaseIds = chain.map((r) => r.id);
  const bundleIds = chain.map((r) => r.bundleId);
  const maybeRelease = fc.option(fc.constantFrom(...releaseIds, 'foreign'), { freq: 2 });
  const maybeBundle = fc.option(fc.constantFrom(...bundleIds, 'foreign'), { freq: 3 });
  return fc.record({
    chain: fc.constant(chain as ChainRelease[]),
    device: fc.record({
      id: fc.constant('d'),
      quarantined: oneIn(10),
      cohortId: fc.option(fc.constant('c'), { freq: 10 }),
      tags: fc.option(fc.subarray(TAGS)),
      reportedReleaseId: maybeRelease,
      reportedBundleId: maybeBundle,
    }),
    headers: fc.record({
      releaseId: maybeRelease,
      bundleId: maybeBundle,
      releaseVersion: fc.option(fc.constantFrom(...VERSIONS, 'junk'), { freq: 2 }),
    }),
    overrides: fc.oneof(
      { weight: 4, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.record({
            id: fc.constantFrom('o1', 'o2', 'o3'),
            bundleId: fc.constantFrom('ob1', 'ob2'),
            startsAt: fc.integer({ min: -3, max: 1 }).map((h) => new Date(NOW.getTime() + h * HOUR)),
            endsAt: fc.integer({ min: 0, max: 3 }).map((h) => new Date(NOW.getTime() + h * HOUR)),
          }),
          { minLength: 1, maxLength: 2 },
        ),
      },
    ),
    unsigned: fc.oneof({ weight: 3, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: fc.subarray([...bundleIds, 'ob1', 'ob2']) }),
    claims: fc.dictionary(
      fc.constantFrom(...releaseIds, 'none'),
      fc.record({ deviceHasClaim: oneIn(4), claimCount: fc.integer({ min: 0, max: 60 }), cohortDeviceCount: fc.integer({ min: 0, max: 100 }) }),
      { maxKeys: 8 },
    ),
  });
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function toInput(s: Scenario): ResolutionInput {
  return {
    chain: s.chain,
    device: s.device,
    headers: s.headers,
    overrides: s.overrides,
    bundleSigned: (bundleId: string) => !s.unsigned.includes(bundleId),
    phaseClaims: (releaseId: string) => s.claims[releaseId] ?? noClaims,
    now: NOW,
  };
}

/**
 * The index the device is at, as the contract defines it: the release (or latest release with the
 * bundle) it reports; just before the lowest release its version qualifies for (the releases below
 * have requirements its version no longer meets, so it is past them); or -1 with no position.
 */
function devicePosition(input: ResolutionInput, result: ReturnType<typeof resolveUpdate>): number {
  const step = result.explanation.find((s) => s.step === 'position' && s.outcome === 'taken');
  if (step === undefined || step.reason === 'no_position') return -1;
  const index = input.chain.findIndex((r) => r.id === step.subject?.id);
  return step.reason === 'version_header' ? index - 1 : index;
}

describe('resolveUpdate properties', () => {
  const runs = { numRuns: 2000 };

  it('a quarantined device is never offered anything', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const result = resolveUpdate(toInput(s));
        if (s.device.quarantined) expect(result).toMatchObject({ status: 'device_quarantine', bundleId: null, claim: null });
        else expect(result.status).not.toBe('device_quarantine');
      }),
      runs,
    );
  });

  it('a resolved release is usable: not disabled, past its schedule, requirement met, signed, new', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = toInput(s);
        const result = resolveUpdate(input);
        if (result.status !== 'update' || result.sourceType !== 'release') return;
        const chosen = input.chain.find((r) => r.id === result.releaseId)!;
        expect(chosen.disabled).toBe(false);
        expect(chosen.cancelled).toBe(false);
        if (chosen.paused) expect(input.phaseClaims(chosen.id).deviceHasClaim && isPhased(chosen)).toBe(true);
        expect(chosen.scheduleDate === null || chosen.scheduleDate.getTime() <= NOW.getTime()).toBe(true);
        expect(input.bundleSigned(chosen.bundleId)).toBe(true);
        expect(result.bundleId).toBe(chosen.bundleId);
        const reportedBundle = input.headers.bundleId ?? input.device.reportedBundleId;
        expect(chosen.bundleId).not.toBe(reportedBundle);
      }),
      runs,
    );
  });

  it('never skips a required release and never goes back to or below the device position', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = toInput(s);
        const result = resolveUpdate(input);
        if (result.status !== 'update' || result.sourceType !== 'release') return;
        const from = devicePosition(input, result);
        const to = input.chain.findIndex((r) => r.id === result.releaseId);
        expect(to).toBeGreaterThan(from);
        for (let j = from + 1; j < to; j++) expect(input.chain[j].required).toBe(false);
      }),
      runs,
    );
  });

  it('never exceeds a phase: a new claim only while claims < slots, tags only for tagged devices', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = toInput(s);
        const result = resolveUpdate(input);
        if (result.claim !== null) {
          expect(result.status).toBe('update');
          expect(result.claim.releaseId).toBe(result.releaseId);
        }
        if (result.status !== 'update' || result.sourceType !== 'release') return;
        const chosen = input.chain.find((r) => r.id === result.releaseId)!;
        if (!isPhased(chosen)) {
          expect(result.claim).toBeNull();
          return;
        }
        const state = input.phaseClaims(chosen.id);
        if (state.deviceHasClaim) expect(result.claim).toBeNull();
        else if (chosen.phaseMode === 'tags') {
          expect(result.claim).toBeNull();
          expect((chosen.phaseTags ?? []).some((t) => (input.device.tags ?? []).includes(t))).toBe(true);
        } else {
          expect(result.claim).not.toBeNull();
          expect(state.claimCount).toBeLessThan(phaseSlots(chosen.phaseValue, state.cohortDeviceCount));
        }
      }),
      runs,
    );
  });

  it('an update always names its source, a non-update never does, and the explanation is never empty', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const result = resolveUpdate(toInput(s));
        expect(result.explanation.length).toBeGreaterThan(0);
        if (result.status === 'update') {
          expect(result.sourceType).not.toBeNull();
          expect(result.bundleId).not.toBeNull();
          expect(result.sourceType === 'bundle_override' ? result.overrideId : result.releaseId).not.toBeNull();
        } else {
          expect([result.sourceType, result.releaseId, result.bundleId, result.overrideId, result.claim]).toEqual([null, null, null, null, null]);
        }
      }),
      runs,
    );
  });

  it('the generator reaches every outcome often enough to mean something', () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(scenario, (s) => {
        const result = resolveUpdate(toInput(s));
        for (const step of result.explanation) seen.set(step.reason, (seen.get(step.reason) ?? 0) + 1);
        const outcome = `${result.status}:${result.sourceType}:${result.claim ? 'claim' : '-'}`;
        seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
      }),
      runs,
    );
    for (const key of ['update:release:claim', 'update:release:-', 'update:bundle_override:-', 'no_update:null:-', 'device_quarantine:null:-']) {
      expect(seen.get(key) ?? 0).toBeGreaterThan(10);
    }
    for (const reason of ['required_release', 'disabled', 'scheduled', 'requirement_not_met', 'phase_full', 'not_in_phase_tags', 'phase_claimed', 'unsigned_binaries', 'already_current', 'release_header', 'bundle_header', 'version_header']) {
      expect(seen.get(reason) ?? 0, reason).toBeGreaterThan(10);
    }
  });

  it('a chain index (as the chain cache keeps one) changes nothing: same result, same explanation', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = toInput(s);
        const chainIndex = new Map(input.chain.map((release, index) => [release.id, index]));
        expect(resolveUpdate({ ...input, chainIndex })).toEqual(resolveUpdate(input));
      }),
      runs,
    );
  });

  it('an active override always decides the answer', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = toInput(s);
        const result = resolveUpdate(input);
        const active = input.overrides.some((o) => o.startsAt <= NOW && NOW < o.endsAt);
        if (!input.device.quarantined && input.device.cohortId !== null && active) expect(result.sourceType).not.toBe('release');
      }),
      runs,
    );
  });
});
