import { describe, expect, it } from 'vitest';
import { overlaps, parseCidr } from './cidr.ts';
import { freeBlocks } from './local-networks.ts';
import { parsePortRange, portAllowed } from './port-ranges.ts';

describe('parseCidr / overlaps', () => {
  it('parses IPv4 and IPv6 blocks and clears host bits', () => {
    expect(parseCidr('10.250.3.7/16')).toEqual({ version: 4, network: 0x0afa0000n, prefix: 16 });
    expect(parseCidr('fd00::1/64')).toEqual({ version: 6, network: 0xfd00n << 112n, prefix: 64 });
    expect(parseCidr('::ffff:10.0.0.1/128')?.network).toBe((0xffffn << 32n) | 0x0a000001n);
    for (const bad of ['10.0.0.0', '10.0.0.0/33', 'fd00::/129', 'x/8', '10.0.0.0/8/8', '']) expect(parseCidr(bad)).toBeNull();
  });

  it('two blocks overlap when one contains the other; families never overlap', () => {
    const c = (text: string) => parseCidr(text)!;
    expect(overlaps(c('10.0.0.0/8'), c('10.250.0.0/16'))).toBe(true);
    expect(overlaps(c('10.250.0.0/16'), c('10.0.0.0/8'))).toBe(true);
    expect(overlaps(c('10.250.0.0/16'), c('10.251.0.0/16'))).toBe(false);
    expect(overlaps(c('192.168.1.7/32'), c('192.168.1.0/24'))).toBe(true);
    expect(overlaps(c('fd00::/8'), c('fd12::/64'))).toBe(true);
    expect(overlaps(c('0.0.0.0/0'), c('fd00::/8'))).toBe(false);
  });

  it('freeBlocks drops the configured blocks that clash with a device network', () => {
    const networks = [parseCidr('10.250.4.0/24')!, parseCidr('192.168.0.0/16')!];
    expect(freeBlocks(['10.250.0.0/16', '10.251.0.0/16', '192.168.7.0/24', 'fd00::/64'], networks)).toEqual(['10.251.0.0/16', 'fd00::/64']);
  });
});

describe('port ranges', () => {
  it('parses single ports and ranges and checks membership', () => {
    expect(parsePortRange('22')).toEqual({ low: 22, high: 22 });
    expect(parsePortRange(' 8080 - 8090 ')).toEqual({ low: 8080, high: 8090 });
    for (const bad of ['0', '65536', '90-80', 'a', '1-2-3', '']) expect(parsePortRange(bad)).toBeNull();
    const ranges = [parsePortRange('22')!, parsePortRange('8080-8090')!];
    expect([21, 22, 23, 8079, 8080, 8090, 8091].map((p) => portAllowed(ranges, p))).toEqual([false, true, false, false, true, true, false]);
  });
});
