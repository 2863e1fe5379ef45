/**
 * Loaded into a server under a benchmark (`node --import bench/lib/loop-probe.mjs`): every
 * CANOPY_LOOP_PROBE_MS (default 5,000) it appends one JSON line to CANOPY_LOOP_PROBE_FILE with the
 * process's RSS and heap, and the event loop's delay over that interval (p50, p99, max, in ms),
 * so a soak can watch them without a route of the server's own for it.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.CANOPY_LOOP_PROBE_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const timer = setInterval(() => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const { rss, heapUsed } = process.memoryUsage();
    const line = { at: Date.now(), rss_mib: Math.round(rss / 1048576), heap_mib: Math.round(heapUsed / 1048576), delay_p50_ms: ms(histogram.percentile(50)), delay_p99_ms: ms(histogram.percentile(99)), delay_max_ms: ms(histogram.max) };
    histogram.reset();
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, Number(process.env.CANOPY_LOOP_PROBE_MS ?? 5000));
  timer.unref();
}
