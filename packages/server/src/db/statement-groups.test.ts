import { describe, expect, it } from 'vitest';
import { StatementGroups } from './statement-groups';

/** A batch reader that records the batches it was given and answers after `gate` opens. */
function recorder(answer: (key: number) => number = (key) => key * 10) {
  const calls: number[][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const readAll = async (keys: readonly number[]) => {
    calls.push([...keys]);
    await gate;
    if (keys.length > 1 && keys.includes(13)) throw new Error('batch refused');
    return keys.map((key) => {
      if (key === 13) throw new Error('thirteen');
      return answer(key);
    });
  };
  return { calls, open, readAll };
}

describe('StatementGroups', () => {
  it('sends calls made together as one group, each answered with its own result', async () => {
    const { calls, open, readAll } = recorder();
    const batches = new StatementGroups(readAll, { maxInFlight: 2, maxGroup: 100 });
    const answers = Promise.all([1, 2, 3].map((key) => batches.submit(key)));
    open();
    expect(await answers).toEqual([10, 20, 30]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('keeps at most maxInFlight groups of at most maxGroup at the database; later calls wait for the next', async () => {
    const { calls, open, readAll } = recorder();
    const batches = new StatementGroups(readAll, { maxInFlight: 2, maxGroup: 2 });
    const answers = Promise.all([1, 2, 3, 4, 5, 6].map((key) => batches.submit(key)));
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

  it('while a group is out, sends a further one only with minGroupWhenBusy calls; an idle one sends a lone call at once', async () => {
    const { calls, open, readAll } = recorder();
    const batches = new StatementGroups(readAll, { maxInFlight: 4, maxGroup: 100, minGroupWhenBusy: 3 });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const answers = [batches.submit(1)];
    await turn();
    expect(calls).toEqual([[1]]);
    answers.push(batches.submit(2), batches.submit(3));
    await turn();
    expect(calls).toEqual([[1]]);
    answers.push(batches.submit(4));
    await turn();
    expect(calls).toEqual([[1], [2, 3, 4]]);
    answers.push(batches.submit(5));
    await turn();
    expect(calls).toEqual([[1], [2, 3, 4]]);
    open();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50]);
    expect(calls).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('retries a failed group call by call, so only the failing call fails', async () => {
    const { open, readAll } = recorder();
    const batches = new StatementGroups(readAll, { maxInFlight: 1, maxGroup: 10 });
    const results = Promise.allSettled([12, 13, 14].map((key) => batches.submit(key)));
    open();
    const [a, b, c] = await results;
    expect(a).toEqual({ status: 'fulfilled', value: 120 });
    expect(b).toMatchObject({ status: 'rejected', reason: new Error('thirteen') });
    expect(c).toEqual({ status: 'fulfilled', value: 140 });
  });

  it('never puts two calls with one exclusive key in a group; the later waits for the next group in order', async () => {
    const { calls, open, readAll } = recorder();
    const groups = new StatementGroups(readAll, { maxInFlight: 1, maxGroup: 10, exclusiveKey: (key: number) => String(key % 10) });
    const answers = Promise.all([1, 2, 11, 3, 21].map((key) => groups.submit(key)));
    open();
    expect(await answers).toEqual([10, 20, 110, 30, 210]);
    expect(calls).toEqual([[1, 2, 3], [11], [21]]);
  });
});
