import { describe, expect, it } from 'vitest';
import { parseCidr } from './cidr';
import { freeAddresses } from './allocation';

describe('tunnel address allocation', () => {
  const blocks = (...cidrs: string[]) => cidrs.map((c) => parseCidr(c)!);

  it('takes the first two usable addresses no open tunnel holds', () => {
    expect(freeAddresses(blocks('10.8.0.0/29'), new Set(), 2)).toEqual(['10.8.0.1', '10.8.0.2']);
    expect(freeAddresses(blocks('10.8.0.0/29'), new Set(['10.8.0.1', '10.8.0.3']), 2)).toEqual(['10.8.0.2', '10.8.0.4']);
    expect(freeAddresses(blocks('10.8.0.0/30', '10.9.0.0/30'), new Set(['10.8.0.1']), 2)).toEqual(['10.8.0.2', '10.9.0.1']);
  });

  it('answers fewer when the blocks are used up, and never the same address twice', () => {
    expect(freeAddresses(blocks('10.8.0.0/30'), new Set(['10.8.0.1']), 2)).toEqual(['10.8.0.2']);
    expect(freeAddresses(blocks('10.8.0.1/32', '10.8.0.1/32'), new Set(), 2)).toEqual(['10.8.0.1']);
  });

  it('ends quickly in a huge block', () => {
    const used = new Set(Array.from({ length: 1000 }, (_, i) => `fd00::${(i + 1).toString(16)}`));
    expect(freeAddresses(blocks('fd00::/64'), used, 2)).toEqual(['fd00::3e9', 'fd00::3ea']);
  });
});
