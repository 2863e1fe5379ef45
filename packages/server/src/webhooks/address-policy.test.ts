import { describe, expect, it } from 'vitest';
import { judgeAddress } from './address-policy';

describe('webhook address policy', () => {
  it.each([
    '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '127.9.9.9', '0.0.0.0',
    '169.254.1.1', '100.64.0.1', '100.127.255.254', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::10.0.0.1', '64:ff9b::7f00:1',
  ])('refuses the non-public address %s', (address) => {
    expect(judgeAddress(address, false)).toBe('private');
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])('allows the public address %s', (address) => {
    expect(judgeAddress(address, false)).toBe('allowed');
  });

  it('refuses metadata endpoints even when private addresses are allowed', () => {
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe']) {
      expect(judgeAddress(address, true)).toBe('metadata');
      expect(judgeAddress(address, false)).toBe('metadata');
    }
  });

  it('judges the same address by the policy asked for each time', () => {
    for (let i = 0; i < 2; i++) {
      expect(judgeAddress('10.9.8.7', true)).toBe('allowed');
      expect(judgeAddress('10.9.8.7', false)).toBe('private');
    }
  });

  it('allows private addresses when told to, and calls non-addresses invalid', () => {
    expect(judgeAddress('127.0.0.1', true)).toBe('allowed');
    expect(judgeAddress('::1', true)).toBe('allowed');
    expect(judgeAddress('example.com', false)).toBe('invalid');
  });
});
