/**
 * Lighthouse (from npm) against Debian's Chromium, never a downloaded browser. Lighthouse's
 * default settings: mobile form factor with simulated throttling (slow 4G, 4x CPU slowdown),
 * which leans on measured main-thread work, so a loaded machine still moves the figure: run it
 * several times and take the median.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';

const CHROMIUM = '/usr/bin/chromium';

export interface LighthouseRun {
  performance: number;
  /**
   * Lighthouse's measure of this machine's CPU speed during the run (about 1000-2500 for a
   * desktop; lower on a loaded machine), to read the score against: the simulated 4x slowdown
   * multiplies the main-thread times measured here.
   */
  benchmarkIndex: number;
  /** Audit id -> displayed value, for the metrics behind the score. */
  metrics: Record<string, string>;
}

const METRICS = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index'];

/** Starts Chromium with a DevTools port and resolves with that port once it listens. */
async function startChromium(): Promise<{ port: number; stop: () => Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-lighthouse-'));
  const child = spawn(CHROMIUM, [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--remote-debugging-port=0',
    `--user-data-dir=${profile}`,
    'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // The profile is removed only once Chromium has stopped writing to it. Its helper processes
  // (the network service filling the disk cache) can outlive the browser process by a moment,
  // hence the retries; a profile left in the temporary directory is not worth failing the run.
  const stop = async () => {
    child.kill();
    await exited;
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
    } catch (error) {
      console.warn(`could not remove the Chromium profile ${profile}: ${(error as Error).message}`);
    }
  };
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`chromium exited (${code}) before listening: ${seen.slice(-500)}`)));
  });
  return { port, stop };
}

export async function runLighthouse(url: string): Promise<LighthouseRun> {
  const chromium = await startChromium();
  try {
    const result = await lighthouse(url, { port: chromium.port, onlyCategories: ['performance'], logLevel: 'error', output: 'json' });
    if (!result) throw new Error('lighthouse returned no result');
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.message}`);
    const metrics: Record<string, string> = {};
    for (const id of METRICS) metrics[id] = lhr.audits[id]?.displayValue ?? '?';
    return { performance: Math.round((lhr.categories.performance.score ?? 0) * 100), benchmarkIndex: Math.round(lhr.environment.benchmarkIndex), metrics };
  } finally {
    await chromium.stop();
  }
}

/** Runs Lighthouse `times` times one after another and returns the run with the median score. */
export async function medianLighthouse(url: string, times: number): Promise<{ median: LighthouseRun; scores: number[]; benchmarkIndexes: number[] }> {
  const runs: LighthouseRun[] = [];
  for (let i = 0; i < times; i += 1) runs.push(await runLighthouse(url));
  const sorted = [...runs].sort((a, b) => a.performance - b.performance);
  return { median: sorted[Math.floor(sorted.length / 2)], scores: runs.map((r) => r.performance), benchmarkIndexes: runs.map((r) => r.benchmarkIndex) };
}
