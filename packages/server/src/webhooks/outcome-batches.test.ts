import { describe, expect, it } from 'vitest';
import { createOutcomeBatches } from './outcome-batches';

/** A write the test finishes by hand, recording what each call was given. */
function manualWrites() {
  const calls: { items: number[]; finish: (error?: Error) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ items, finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { calls, write };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('outcome batches', () => {
  it('writes a lone outcome at once, and groups the ones that arrive while a write runs', async () => {
    const { calls, write } = manualWrites();
    const batches = createOutcomeBatches(write, 100);
    const first = batches.add(1);
    await flush();
    expect(calls.map((c) => c.items)).toEqual([[1]]);

    const later = [batches.add(2), batches.add(3), batches.add(4)];
    await flush();
    expect(calls.length).toBe(1);
    calls[0].finish();
    await first;
    await flush();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1].finish();
    await Promise.all(later);
  });

  it('splits a pile-up at maxBatch', async () => {
    const { calls, write } = manualWrites();
    const batches = createOutcomeBatches(write, 2);
    const all = [1, 2, 3, 4, 5].map((n) => batches.add(n));
    for (let i = 0; i < 4; i++) {
      await flush();
      calls[calls.length - 1]?.finish();
    }
    await Promise.all(all);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('fails only the outcomes of a failed write, and keeps writing the next ones', async () => {
    const { calls, write } = manualWrites();
    const batches = createOutcomeBatches(write, 100);
    const first = batches.add(1);
    const second = batches.add(2);
    await flush();
    calls[0].finish(new Error('database gone'));
    await expect(first).rejects.toThrow('database gone');
    await flush();
    calls[1].finish();
    await expect(second).resolves.toBeUndefined();
    const third = batches.add(3);
    await flush();
    calls[2].finish();
    await expect(third).resolves.toBeUndefined();
    expect(calls.map((c) => c.items)).toEqual([[1], [2], [3]]);
  });
});
