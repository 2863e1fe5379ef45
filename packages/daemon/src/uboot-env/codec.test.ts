import { describe, expect, it } from 'vitest';
import { crc32 } from './crc32.ts';
import { currentCopy, decodeCopy, encodeCopy, EnvironmentError, flagIsNewer, losingFlag, nextFlag, parseData } from './codec.ts';

describe('crc32', () => {
  it('matches the standard check value and an empty input', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
  });
});

describe('encodeCopy / decodeCopy', () => {
  const vars = new Map([
    ['canopy_boot_count', '0'],
    ['bootcmd', 'run a; run b'],
    ['eq', 'a=b=c'],
  ]);

  it('single layout: CRC, then sorted NUL-ended entries, then NUL padding', () => {
    const copy = encodeCopy(vars, 64, 'single');
    expect(copy.length).toBe(64);
    const data = copy.subarray(4);
    expect(copy.readUInt32LE(0)).toBe(crc32(data));
    expect(data.toString('latin1').replace(/\0+$/, '')).toBe('bootcmd=run a; run b\0canopy_boot_count=0\0eq=a=b=c');
    expect(decodeCopy(copy, 'single')).toEqual({ valid: true, flag: null, variables: new Map([...vars].sort()) });
  });

  it('redundant layout: the flag sits after the CRC and is not covered by it', () => {
    const copy = encodeCopy(vars, 64, 'redundant', 7);
    expect(copy[4]).toBe(7);
    expect(copy.readUInt32LE(0)).toBe(crc32(copy.subarray(5)));
    const reflagged = Buffer.from(copy);
    reflagged[4] = 8;
    expect(decodeCopy(reflagged, 'redundant')).toMatchObject({ valid: true, flag: 8 });
  });

  it('a flipped data bit or a short buffer makes the copy invalid and empty', () => {
    const copy = encodeCopy(vars, 64, 'single');
    copy[10] ^= 1;
    expect(decodeCopy(copy, 'single')).toEqual({ valid: false, flag: null, variables: new Map() });
    expect(decodeCopy(Buffer.alloc(3), 'single').valid).toBe(false);
    expect(decodeCopy(Buffer.alloc(64), 'redundant').valid).toBe(false); // all zeros: CRC 0 != crc32(zeros)
  });

  it('keeps bytes it does not understand (latin1 round trip)', () => {
    const odd = new Map([['blob', '\xff\xfe\x80 caf\xc3\xa9']]);
    expect(decodeCopy(encodeCopy(odd, 32, 'single'), 'single').variables).toEqual(odd);
  });

  it('refuses bad names, NUL in values, and variables that do not fit, naming the reason', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as EnvironmentError).code;
      }
      return 'no error';
    };
    expect(code(() => encodeCopy(new Map([['a=b', '1']]), 64, 'single'))).toBe('invalid_name');
    expect(code(() => encodeCopy(new Map([['', '1']]), 64, 'single'))).toBe('invalid_name');
    expect(code(() => encodeCopy(new Map([['a', 'x\0y']]), 64, 'single'))).toBe('invalid_value');
    expect(code(() => encodeCopy(new Map([['a', '\u20ac']]), 64, 'single'))).toBe('invalid_value');
    // 4 header bytes + "a=12345\0" (8) + final NUL = 13: fits in 13, not in 12.
    expect(encodeCopy(new Map([['a', '12345']]), 13, 'single').length).toBe(13);
    expect(code(() => encodeCopy(new Map([['a', '12345']]), 12, 'single'))).toBe('too_large');
    expect(code(() => encodeCopy(new Map(), 5, 'single'))).toBe('invalid_size');
    expect(() => encodeCopy(new Map(), 16, 'redundant', 256)).toThrow(RangeError);
  });

  it('parseData skips entries without a name and stops at the empty entry', () => {
    const data = Buffer.from('a=1\0noequals\0=x\0b=\0\0c=ignored\0', 'latin1');
    expect(parseData(data)).toEqual(new Map([['a', '1'], ['b', '']]));
  });
});

describe('redundant copies: which is current', () => {
  const valid = (flag: number) => ({ valid: true, flag, variables: new Map() });
  const invalid = (flag: number) => ({ valid: false, flag, variables: new Map() });

  it('the higher flag wins, 0 beats 255, copy 0 on a tie', () => {
    expect(currentCopy([valid(1), valid(2)])).toBe(1);
    expect(currentCopy([valid(9), valid(2)])).toBe(0);
    expect(currentCopy([valid(255), valid(0)])).toBe(1);
    expect(currentCopy([valid(0), valid(255)])).toBe(0);
    expect(currentCopy([valid(4), valid(4)])).toBe(0);
  });

  it('an invalid copy never wins; with none valid, copy 0', () => {
    expect(currentCopy([invalid(200), valid(1)])).toBe(1);
    expect(currentCopy([valid(1), invalid(200)])).toBe(0);
    expect(currentCopy([invalid(1), invalid(2)])).toBe(0);
  });

  it('the write flags: the losing one loses and the next one wins, across the wrap', () => {
    for (const current of [0, 1, 127, 254, 255]) {
      expect(flagIsNewer(losingFlag(current), current)).toBe(false);
      expect(flagIsNewer(nextFlag(current), current)).toBe(true);
    }
    expect(nextFlag(255)).toBe(0);
    expect(nextFlag(null)).toBe(1);
  });
});
