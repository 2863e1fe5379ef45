/**
 * Group commit for attempt outcomes: while one batch is being written, the outcomes that arrive
 * pile up and go together in the next write, so the number of writes follows the database's
 * pace rather than the delivery rate, and a lone outcome is written at once (no timer, no added
 * latency when the process is quiet). Each `add` settles when its own batch has been written.
 */
export interface OutcomeBatches<T> {
  add(item: T): Promise<void>;
}

export function createOutcomeBatches<T>(write: (items: T[]) => Promise<void>, maxBatch: number): OutcomeBatches<T> {
  let waiting: { item: T; settle: (error?: unknown) => void }[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        await write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.settle();
      } catch (error) {
        for (const entry of batch) entry.settle(error);
      }
    }
    writing = false;
  }

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
        if (!writing) void drain();
      });
    },
  };
}
