import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultIdentifier, parseInitArgs } from './options.ts';

const required = ['--cohort-prn', 'prn:1:org:cohort:c', '--signing-key-prn', 'prn:1:org:signing_key:k'];

describe('canopy-daemon init options', () => {
  it('find a server started with npm start from the same settings it reads', () => {
    const options = parseInitArgs(['trial', ...required], { CANOPY_ADMIN_PORT: '5000', CANOPY_DEVICE_PORT: '5001', CANOPY_DATA_DIR: '/srv/canopy' }, 'ab12');
    expect(options).toMatchObject({
      dir: path.resolve('trial'),
      adminUrl: 'http://127.0.0.1:5000',
      deviceUrl: 'https://127.0.0.1:5001',
      apiKeyFile: '/srv/canopy/initial-api-key',
      serverCa: '/srv/canopy/device-api/ca.pem',
      apiKey: undefined,
      poll: 10,
      force: false,
    });
    expect(parseInitArgs(['trial', ...required], {}, 'ab12')).toMatchObject({ adminUrl: 'http://127.0.0.1:4000', deviceUrl: 'https://127.0.0.1:4001', serverCa: path.resolve('data/device-api/ca.pem') });
  });

  it('take the guides\' CANOPY_URL and CANOPY_API_KEY, and options over everything', () => {
    expect(parseInitArgs(['t', ...required], { CANOPY_URL: 'http://h:1', CANOPY_API_KEY: 'k' }, 'x')).toMatchObject({ adminUrl: 'http://h:1', apiKey: 'k' });
    const options = parseInitArgs(['t', ...required, '--admin-url', 'http://a', '--api-key', 'o', '--identifier', 'dev-1', '--target', 'tt', '--poll', '30', '--force'], { CANOPY_URL: 'http://h:1', CANOPY_API_KEY: 'k' }, 'x');
    expect(options).toMatchObject({ adminUrl: 'http://a', apiKey: 'o', identifier: 'dev-1', target: 'tt', poll: 30, force: true });
  });

  it('refuse what cannot make a setup, saying what is wrong', () => {
    expect(parseInitArgs(required, {}, 'x')).toBe('init needs the directory to write the setup into');
    expect(parseInitArgs(['a', 'b', ...required], {}, 'x')).toBe('one directory only, got a b');
    expect(parseInitArgs(['a', '--signing-key-prn', 'k'], {}, 'x')).toMatch(/^--cohort-prn is required/);
    expect(parseInitArgs(['a', '--cohort-prn', 'c'], {}, 'x')).toMatch(/^--signing-key-prn is required/);
    expect(parseInitArgs(['a', ...required, '--poll', '5'], {}, 'x')).toMatch(/at least 10/);
    expect(parseInitArgs(['a', ...required, '--bogus'], {}, 'x')).toMatch(/bogus/);
  });

  it('make a default identifier from the host name that the server takes', () => {
    expect(defaultIdentifier('Build Box.local', '0f3a')).toBe('trial-build-box-local-0f3a');
    expect(defaultIdentifier('---', '0f3a')).toBe('trial-host-0f3a');
  });
});
