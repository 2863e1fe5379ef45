/**
 * How late this process's event loop is running, read by handshake shedding: the admin API and
 * the device API share one loop, so a late loop is an admin request answered late.
 *
 * A timer runs every `periodMs` and notes when it ran. Lateness is the larger of how late it ran
 * last time and how far past its period it is now. The second term grows while a long turn is
 * still running, so a connection accepted near the end of a long turn already sees it; the first
 * keeps a long turn visible to the turn after it, until the timer runs on time again.
 * (perf_hooks' monitorEventLoopDelay measures the same delays, but into a histogram read after
 * the fact; shedding needs the delay of the turn in progress.)
 */

export interface LoopLateness {
  /** Milliseconds the loop is behind now (0 when on time). */
  ms(nowMs?: number): number;
  stop(): void;
}

export const LOOP_SAMPLE_MS = 10;

export function watchLoopLateness(periodMs = LOOP_SAMPLE_MS): LoopLateness {
  let ranAt = performance.now();
  let lastLateMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lastLateMs = Math.max(0, now - ranAt - periodMs);
    ranAt = now;
  }, periodMs);
  // Never what keeps the process alive.
  timer.unref();
  return {
    ms: (nowMs = performance.now()) => Math.max(lastLateMs, nowMs - ranAt - periodMs),
    stop: () => clearInterval(timer),
  };
}
