import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { outcomeOf } from './enrol.ts';
import { ENROL_EXIT, parseEnrolArgs } from './options.ts';

describe('parseEnrolArgs', () => {
  it('takes the token from a file or the environment, never the command line', () => {
    expect(parseEnrolArgs(['--token-file', '/run/token', '--identifier', 'gw-1'], {})).toEqual({ config: '/etc/canopy/canopy-daemon.json', identifier: 'gw-1', token: undefined, tokenFile: '/run/token' });
    expect(parseEnrolArgs([], { CANOPY_CLAIM_TOKEN: ' cnpyc_x \n', CANOPY_DAEMON_CONFIG: '/d/c.json' })).toEqual({ config: '/d/c.json', identifier: os.hostname(), token: 'cnpyc_x', tokenFile: undefined });
    expect(parseEnrolArgs([], {})).toMatch(/CANOPY_CLAIM_TOKEN/);
    expect(parseEnrolArgs(['--token', 'cnpyc_x'], {})).toMatch(/--token/);
  });

  it('refuses an identifier the server would refuse', () => {
    expect(parseEnrolArgs(['--identifier', 'has space'], { CANOPY_CLAIM_TOKEN: 't' })).toMatch(/--identifier/);
    expect(parseEnrolArgs(['--identifier', 'x'.repeat(129)], { CANOPY_CLAIM_TOKEN: 't' })).toMatch(/--identifier/);
    expect(parseEnrolArgs(['--help'], {})).toBe('help');
  });
});

describe('outcomeOf', () => {
  it('maps each answer of POST /device/claim to an exit code', () => {
    expect(outcomeOf({ status: 201, body: { certificate: 'PEM', device_prn: 'prn:d' } })).toEqual({ exit: ENROL_EXIT.enrolled, message: 'enrolled as prn:d' });
    expect(outcomeOf({ status: 200, body: { certificate: 'PEM', device_prn: 'prn:d' } }).exit).toBe(ENROL_EXIT.enrolled);
    expect(outcomeOf({ status: 202, body: { device_reclaim_prn: 'prn:r' } })).toMatchObject({ exit: ENROL_EXIT.pending, message: expect.stringContaining('prn:r') });
    expect(outcomeOf({ status: 429, body: {} }).exit).toBe(ENROL_EXIT.pending);
    expect(outcomeOf({ status: 403, body: { errors: [{ code: 'claim_token_expired' }] } })).toMatchObject({ exit: ENROL_EXIT.refused, message: expect.stringContaining('claim_token_expired') });
    expect(outcomeOf({ status: 401, body: { errors: [{ code: 'invalid_claim_token' }] } }).exit).toBe(ENROL_EXIT.refused);
    expect(outcomeOf({ status: 422, body: { errors: [{ code: 'invalid_value' }] } })).toMatchObject({ exit: ENROL_EXIT.failed, message: expect.stringContaining('invalid_value') });
    // An enrolled status without a certificate is not an enrolment.
    expect(outcomeOf({ status: 200, body: {} }).exit).toBe(ENROL_EXIT.failed);
  });
});
