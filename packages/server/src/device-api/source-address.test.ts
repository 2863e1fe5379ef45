import { describe, expect, it } from 'vitest';
import { sourceAddressKey } from './source-address';

describe('sourceAddressKey', () => {
  it('keys IPv4 by the address, IPv4-mapped IPv6 as the IPv4 address', () => {
    expect(sourceAddressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(sourceAddressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(sourceAddressKey('::FFFF:192.0.2.7')).toBe('192.0.2.7');
  });

  it('keys IPv6 by its /64, however the address is written', () => {
    const key = '2001:db8:0:1::/64';
    expect(sourceAddressKey('2001:db8:0:1::5')).toBe(key);
    expect(sourceAddressKey('2001:0DB8:0000:0001:ffff:1:2:3')).toBe(key);
    expect(sourceAddressKey('2001:db8::1:0:0:0:9')).toBe(key);
    expect(sourceAddressKey('2001:db8:0:1:0:0:1.2.3.4')).toBe(key);
    expect(sourceAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceAddressKey('2001:db8:0:2::5')).not.toBe(key);
  });
});
