/**
 * Reads asked for at about the same time, sent as ONE statement: the update check's state reads
 * (check-state.ts). A busy server otherwise pays a full round trip per check (the driver's write,
 * PostgreSQL's bind/execute/sync, the wake-ups on both sides) for a read that costs PostgreSQL a
 * few index lookups; one statement over parameter arrays pays it once per batch.
 *
 * Freshness is unchanged: a batch is sent after every read in it was asked for, so each read sees
 * at least everything committed before its check started, exactly as if it had been sent alone.
 * Batching never waits for company: a read leaves with the next batch, and a batch leaves as soon
 * as fewer than `maxInFlight` are at the database (an idle server reads each check at once). A
 * batch that fails as a whole is retried read by read, so one read's error is only ever its own.
 */

/** Answers, for keys, one result per key in the same order. */
export type BatchRead<Key, Result> = (keys: Key[]) => Promise<Result[]>;

interface Waiting<Key, Result> {
  key: Key;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export class ReadBatches<Key, Result> {
  private queue: Waiting<Key, Result>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly readAll: BatchRead<Key, Result>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
  ) {}

  read(key: Key): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      // Reads asked for in this turn of the event loop leave together.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(batch: Waiting<Key, Result>[]): Promise<void> {
    try {
      const results = await this.readAll(batch.map((waiting) => waiting.key));
      batch.forEach((waiting, i) => waiting.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      await Promise.all(
        batch.map((waiting) =>
          this.readAll([waiting.key]).then(
            ([result]) => waiting.resolve(result),
            (alone) => waiting.reject(alone),
          ),
        ),
      );
    }
  }
}
