import { describe, expect, it } from 'vitest';
import { ReadBatches } from './read-batches';

/** A batch reader that records the batches it was given and answers after `gate` opens. */
function recorder(answer: (key: number) => number = (key) => key * 10) {
  const calls: number[][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const readAll = async (keys: number[]) => {
    calls.push(keys);
    await gate;
    if (keys.length > 1 && keys.includes(13)) throw new Error('batch refused');
    return keys.map((key) => {
      if (key === 13) throw new Error('thirteen');
      return answer(key);
    });
  };
  return { calls, open, readAll };
}

describe('ReadBatches', () => {
  it('sends reads asked for together as one batch, each answered with its own result', async () => {
    const { calls, open, readAll } = recorder();
    const batches = new ReadBatches(readAll, 2, 100);
    const answers = Promise.all([1, 2, 3].map((key) => batches.read(key)));
    open();
    expect(await answers).toEqual([10, 20, 30]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('keeps at most maxInFlight batches of at most maxBatch at the database; later reads wait for the next', async () => {
    const { calls, open, readAll } = recorder();
    const batches = new ReadBatches(readAll, 2, 2);
    const answers = Promise.all([1, 2, 3, 4, 5, 6].map((key) => batches.read(key)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([
      [1, 2],
      [3, 4],
    ]);
    open();
    expect(await answers).toEqual([10, 20, 30, 40, 50, 60]);
    expect(calls).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
  });

  it('retries a failed batch read by read, so only the failing read fails', async () => {
    const { open, readAll } = recorder();
    const batches = new ReadBatches(readAll, 1, 10);
    const results = Promise.allSettled([12, 13, 14].map((key) => batches.read(key)));
    open();
    const [a, b, c] = await results;
    expect(a).toEqual({ status: 'fulfilled', value: 120 });
    expect(b).toMatchObject({ status: 'rejected', reason: new Error('thirteen') });
    expect(c).toEqual({ status: 'fulfilled', value: 140 });
  });
});
