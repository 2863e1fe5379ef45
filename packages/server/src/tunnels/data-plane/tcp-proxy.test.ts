import { describe, expect, it } from 'vitest';
import { allowedSource } from './tcp-proxy';

describe('allowedSource (cidr_block_allowlist)', () => {
  it('allows any source when the list is empty', () => {
    expect(allowedSource([], '198.51.100.9')).toBe(true);
  });
  it('allows a source inside a listed block and refuses one outside', () => {
    const list = ['10.201.7.2/32', '192.0.2.0/24'];
    expect(allowedSource(list, '10.201.7.2')).toBe(true);
    expect(allowedSource(list, '10.201.7.3')).toBe(false);
    expect(allowedSource(list, '192.0.2.200')).toBe(true);
  });
  it('matches IPv4 sources that arrive as IPv4-mapped IPv6, and IPv6 blocks', () => {
    expect(allowedSource(['192.0.2.0/24'], '::ffff:192.0.2.5')).toBe(true);
    expect(allowedSource(['2001:db8::/32'], '2001:db8:1::1')).toBe(true);
    expect(allowedSource(['2001:db8::/32'], '2001:db9::1')).toBe(false);
  });
  it('refuses an unknown source when a list is set', () => {
    expect(allowedSource(['0.0.0.0/0'], undefined)).toBe(false);
  });
});
