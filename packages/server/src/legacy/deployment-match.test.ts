import { describe, expect, it } from 'vitest';
import { matchDeployment, type CandidateDeployment } from './deployment-match';

const deployment = (id: string, insertedAt: string, fields: Partial<CandidateDeployment> = {}): CandidateDeployment => ({
  id,
  insertedAt,
  conditionsVersion: null,
  conditionsTags: [],
  firmwareUuid: `fw-${id}`,
  ...fields,
});

describe('matchDeployment', () => {
  const device = { tags: ['east', 'beta'], firmwareVersion: '1.2.0', firmwareUuid: 'fw-running' };

  it('takes the newest deployment whose tags are all on the device and whose version requirement matches', () => {
    const older = deployment('a', '2025-01-01T00:00:00.000000Z');
    const newer = deployment('b', '2025-02-01T00:00:00.000000Z', { conditionsTags: ['east'] });
    const wrongTag = deployment('c', '2025-03-01T00:00:00.000000Z', { conditionsTags: ['east', 'west'] });
    const wrongVersion = deployment('d', '2025-04-01T00:00:00.000000Z', { conditionsVersion: '>= 2.0.0' });
    expect(matchDeployment([older, wrongTag, newer, wrongVersion], device)?.id).toBe('b');
    expect(matchDeployment([deployment('e', '2025-05-01T00:00:00.000000Z', { conditionsVersion: '~> 1.2' }), older], device)?.id).toBe('e');
  });

  it('answers no update when the newest match is the firmware the device runs (no downgrade to an older match)', () => {
    const older = deployment('a', '2025-01-01T00:00:00.000000Z');
    const current = deployment('b', '2025-02-01T00:00:00.000000Z', { firmwareUuid: 'fw-running' });
    expect(matchDeployment([older, current], device)).toBeNull();
  });

  it('never matches a version requirement when the version is unknown or not a version', () => {
    const gated = deployment('a', '2025-01-01T00:00:00.000000Z', { conditionsVersion: '>= 0.0.0' });
    expect(matchDeployment([gated], { ...device, firmwareVersion: null })).toBeNull();
    expect(matchDeployment([gated], { ...device, firmwareVersion: 'unknown' })).toBeNull();
    expect(matchDeployment([gated], device)?.id).toBe('a');
    expect(matchDeployment([deployment('b', '2025-01-01T00:00:00.000000Z')], { ...device, firmwareVersion: null })?.id).toBe('b');
  });

  it('treats a device without tags as having none, and breaks insertion ties by id', () => {
    expect(matchDeployment([deployment('a', '2025-01-01T00:00:00.000000Z', { conditionsTags: ['east'] })], { ...device, tags: null })).toBeNull();
    const same = '2025-01-01T00:00:00.000000Z';
    expect(matchDeployment([deployment('a', same), deployment('b', same)], device)?.id).toBe('b');
    expect(matchDeployment([], device)).toBeNull();
  });
});
