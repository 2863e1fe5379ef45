/**
 * How long every server under test is loaded before a measured run, so each is measured in its
 * steady state, as a server that has been up for a while serves. Two seconds were too short for
 * Canopy: in the device API's keep-alive load, V8's optimizing compiler still took 11% of the
 * server's CPU 4-10 s into the load, and 0.2% 18-24 s into it (perf, 2026-11-24); the
 * measured CPU per check fell from 0.093-0.106 ms to 0.085 ms. A hello-world reaches its steady
 * state within the first second, so the longer warm-up changes the baselines little. Every server
 * of a benchmark gets the same warm-up. BENCH_WARMUP_SECONDS sets it.
 */
export const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
