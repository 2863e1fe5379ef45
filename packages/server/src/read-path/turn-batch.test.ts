import { describe, expect, it } from 'vitest';
import { turnBatch, turnShared } from './turn-batch';

describe('turnBatch', () => {
  it('answers the lookups of one turn with one run over their distinct keys', async () => {
    const runs: string[][] = [];
    const load = turnBatch(async (keys) => {
      runs.push(keys);
      return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.toUpperCase()]));
    });
    expect(await Promise.all([load('a'), load('b'), load('a'), load('missing')])).toEqual(['A', 'B', 'A', undefined]);
    expect(runs).toEqual([['a', 'b', 'missing']]);
    expect(await load('c')).toBe('C');
    expect(runs).toHaveLength(2);
  });

  it('splits a turn of more than 100 lookups, and fails together the lookups of a failed run', async () => {
    const sizes: number[] = [];
    const load = turnBatch(async (keys) => {
      sizes.push(keys.length);
      if (keys.includes('k150')) throw new Error('down');
      return new Map(keys.map((key) => [key, key]));
    });
    const answers = await Promise.allSettled(Array.from({ length: 160 }, (_, i) => load(`k${i}`)));
    expect(sizes).toEqual([100, 60]);
    expect(answers.slice(0, 100).every((answer) => answer.status === 'fulfilled')).toBe(true);
    expect(answers.slice(100).every((answer) => answer.status === 'rejected')).toBe(true);
  });
});

describe('turnShared', () => {
  it('runs each distinct key of a turn once; a key\'s error is only its own', async () => {
    const runs: string[] = [];
    const load = turnShared(async (key) => {
      runs.push(key);
      if (key === 'bad') throw new Error('bad key');
      return `${key}!`;
    });
    const answers = await Promise.allSettled([load('x'), load('x'), load('bad'), load('y')]);
    expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : (answer.reason as Error).message))).toEqual(['x!', 'x!', 'bad key', 'y!']);
    expect(runs).toEqual(['x', 'bad', 'y']);
  });

  it('reads again in a later turn: nothing is remembered between turns', async () => {
    let n = 0;
    const load = turnShared(async () => ++n);
    expect(await load('k')).toBe(1);
    expect(await load('k')).toBe(2);
  });
});
