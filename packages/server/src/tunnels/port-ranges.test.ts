import { describe, expect, it } from 'vitest';
import { firstFreePort, formatPortRange, parsePortRange } from './port-ranges';

describe('port ranges', () => {
  it('reads ranges and single ports', () => {
    expect(parsePortRange('51820-51830')).toEqual({ low: 51820, high: 51830 });
    expect(parsePortRange('22')).toEqual({ low: 22, high: 22 });
    expect(parsePortRange('1-65535')).toEqual({ low: 1, high: 65535 });
    expect(formatPortRange({ low: 22, high: 22 })).toBe('22');
  });

  it('refuses anything else', () => {
    for (const bad of ['0', '65536', '0-10', '9-3', '1-2-3', 'ssh', '', '-5', '22-', '1e3']) expect(parsePortRange(bad), bad).toBeNull();
  });

  it('hands out the first free port in the order given', () => {
    const ranges = [parsePortRange('100-101')!, parsePortRange('50')!];
    expect(firstFreePort(ranges, new Set())).toBe(100);
    expect(firstFreePort(ranges, new Set([100, 101]))).toBe(50);
    expect(firstFreePort(ranges, new Set([100, 101, 50]))).toBeNull();
  });
});
