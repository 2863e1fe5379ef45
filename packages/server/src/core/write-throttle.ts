/**
 * Per-process memory of recent writes of a throttled column (`last_connected_at`, a session's
 * renewal): one write per key per interval from this process, the rest skipped without a query.
 * The UPDATE's own condition keeps several processes together to one write an interval. Bounded,
 * so a huge fleet cannot grow it without end.
 */
export class WriteThrottle {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly intervalMs: number,
    private readonly maxEntries = 200_000,
  ) {}

  /** True when this process should try the write now (and records that it did). */
  due(key: string, nowMs = Date.now()): boolean {
    const last = this.written.get(key);
    if (last !== undefined && nowMs - last < this.intervalMs) return false;
    if (this.written.size >= this.maxEntries) this.written.clear();
    this.written.set(key, nowMs);
    return true;
  }
}
