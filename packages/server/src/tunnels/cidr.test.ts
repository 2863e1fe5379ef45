import { describe, expect, it } from 'vitest';
import { countDistinctUsable, formatCidr, formatIp, hostRoute, parseCidr, parseIp, usableAddresses } from './cidr';

const first = (cidr: string, n: number) => {
  const out: string[] = [];
  for (const address of usableAddresses(parseCidr(cidr)!)) {
    out.push(address);
    if (out.length === n) break;
  }
  return out;
};

describe('CIDR blocks', () => {
  it('reads IPv4 and IPv6 blocks into their normal form', () => {
    expect(formatCidr(parseCidr('10.0.0.7/24')!)).toBe('10.0.0.0/24');
    expect(formatCidr(parseCidr('2001:DB8:0:0:1::1/64')!)).toBe('2001:db8::/64');
    expect(formatCidr(parseCidr('0.0.0.0/0')!)).toBe('0.0.0.0/0');
    expect(formatCidr(parseCidr('::/0')!)).toBe('::/0');
  });

  it('refuses what is not a block', () => {
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.256/24', '10.0.0.0/024', 'fe80::1%eth0/64', '::/129', '10.0.0.0/-1', 'gateway', '', ' 10.0.0.0/8']) {
      expect(parseCidr(bad), bad).toBeNull();
    }
  });

  it('leaves out network, broadcast and subnet-router addresses, except in the smallest blocks', () => {
    expect(first('10.0.0.0/30', 5)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(first('10.0.0.0/31', 5)).toEqual(['10.0.0.0', '10.0.0.1']);
    expect(first('10.0.0.9/32', 5)).toEqual(['10.0.0.9']);
    expect(first('fd00::/126', 5)).toEqual(['fd00::1', 'fd00::2', 'fd00::3']);
    expect(first('fd00::/127', 5)).toEqual(['fd00::', 'fd00::1']);
    expect(first('2001:db8::/32', 2)).toEqual(['2001:db8::1', '2001:db8::2']);
  });

  it('counts distinct usable addresses across overlapping blocks, quickly even for huge ones', () => {
    const blocks = (...cidrs: string[]) => cidrs.map((c) => parseCidr(c)!);
    expect(countDistinctUsable(blocks('10.0.0.1/32', '10.0.0.1/32'), 2)).toBe(1);
    expect(countDistinctUsable(blocks('10.0.0.1/32', '10.0.0.2/32'), 2)).toBe(2);
    expect(countDistinctUsable(blocks('10.0.0.0/30'), 2)).toBe(2);
    expect(countDistinctUsable(blocks('10.0.0.0/24', '10.0.0.0/24'), 2)).toBe(2);
    expect(countDistinctUsable(blocks('::/0'), 2)).toBe(2);
  });

  it('formats addresses the RFC 5952 way', () => {
    expect(formatIp(6, parseIp('2001:0db8:0000:0000:0001:0000:0000:0001')!.value)).toBe('2001:db8::1:0:0:1');
    expect(formatIp(6, parseIp('::ffff:1.2.3.4')!.value)).toBe('::ffff:102:304');
    expect(formatIp(4, parseIp('192.0.2.1')!.value)).toBe('192.0.2.1');
    expect(hostRoute('192.0.2.1')).toBe('192.0.2.1/32');
    expect(hostRoute('fd00::1')).toBe('fd00::1/128');
  });
});
