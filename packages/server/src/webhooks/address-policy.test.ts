import { describe, expect, it } from 'vitest';
import { judgeAddress } from './address-policy';

describe('webhook address policy', () => {
  it.each([
    '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '127.9.9.9', '0.0.0.0',
    '100.64.0.1', '100.127.255.254', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fc00::1', 'fd12:3456::1', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::10.0.0.1', '64:ff9b::7f00:1',
  ])('refuses the non-public address %s', (address) => {
    expect(judgeAddress(address, false)).toBe('private');
  });

  it.each([
    // IANA special-purpose ranges that are not globally reachable
    '192.0.0.1', '192.0.0.170', '192.0.2.1', '192.88.99.1', '198.18.0.1', '198.51.100.7', '203.0.113.9',
    'fec0::1', 'feff::1', '100::1', '2001:2::1', '2001:10::1', '2001:db8::1', '3fff::1', '5f00::1', '4000::1', '::2',
    // IPv6 forms that carry a non-public IPv4
    '::ffff:0:10.0.0.1', '::ffff:0:7f00:1', '::10.0.0.1', '::127.0.0.1', '::7f00:1', '64:ff9b::c0a8:101',
    '64:ff9b:1::10.0.0.1', '64:ff9b:1::8.8.8.8', '64:ff9b:1:a00:1::', '2002:a00:1::', '2002:7f00:1::1', '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo to client 10.0.0.1
    '2001:0:a00:1::', // Teredo through server 10.0.0.1
  ])('refuses the special-purpose address %s', (address) => {
    expect(judgeAddress(address, false)).toBe('private');
  });

  it.each([
    '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.0.0.9', '192.31.196.1', '2606:4700:4700::1111', '2001:4:112::1', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8',
    '::ffff:0:8.8.8.8', '::8.8.8.8', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows the public address %s', (address) => {
    expect(judgeAddress(address, false)).toBe('allowed');
  });

  it.each([
    '169.254.169.254', '169.254.169.253', '169.254.170.2', '169.254.1.1', '100.100.100.200', '168.63.129.16', '192.0.0.192',
    'fd00:ec2::254', 'fd00:ec2::253', 'fd20:ce::254', 'fe80::1',
    '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:0:169.254.169.254', '::169.254.169.254', '::a9fe:a9fe', '64:ff9b::a9fe:a9fe',
    '64:ff9b::100.100.100.200', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:a9fe:a9:fe00::', '2002:a9fe:a9fe::', '2002:a83f:8110::1',
    '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo to client 169.254.169.254
  ])('refuses the metadata address %s even when private addresses are allowed', (address) => {
    expect(judgeAddress(address, true)).toBe('metadata');
    expect(judgeAddress(address, false)).toBe('metadata');
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
    for (const address of ['fec0::1', '64:ff9b:1::10.0.0.1', '2002:a00:1::', '::ffff:0:10.0.0.1']) expect(judgeAddress(address, true)).toBe('allowed');
    expect(judgeAddress('example.com', false)).toBe('invalid');
  });
});
