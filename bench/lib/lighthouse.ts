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
import type { AddressInfo } from 'node:net';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { createSiteServer } from '../../packages/server/src/site/static-site';

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
  /** What Lighthouse says would save the most load time (its opportunities), largest first. */
  opportunities: string[];
}

/**
 * BENCH_LIGHTHOUSE_CPU: Lighthouse's CPU slowdown multiplier instead of its default 4, to stand in
 * for a slower machine (4 x this machine's benchmarkIndex / the other's), as its figures scale
 * measured main-thread times by it.
 */
const CPU_SLOWDOWN = process.env.BENCH_LIGHTHOUSE_CPU ? Number(process.env.BENCH_LIGHTHOUSE_CPU) : undefined;

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

type Result = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

/** The paths an opportunity names (the first three), to know which responses it means. */
function itemsOf(audit: Result['audits'][string]): string {
  const items = ((audit.details as { items?: { url?: string }[] }).items ?? []).map((item) => item.url).filter((url): url is string => Boolean(url));
  return items.length === 0 ? '' : `: ${items.slice(0, 3).map((url) => (URL.canParse(url) ? new URL(url).pathname : url)).join(', ')}`;
}

/** The performance audits that fail with an estimated saving, as "title (saving)". */
function opportunitiesOf(lhr: Result): string[] {
  return Object.values(lhr.audits)
    .filter((audit) => audit.details?.type === 'opportunity' && (audit.score ?? 1) < 0.9)
    .map((audit) => ({ audit, ms: (audit.details as { overallSavingsMs?: number }).overallSavingsMs ?? 0 }))
    .sort((a, b) => b.ms - a.ms)
    .map(({ audit, ms }) => `${audit.title} (${Math.round(ms)} ms${audit.displayValue ? `; ${audit.displayValue}` : ''}${itemsOf(audit)})`);
}

export interface LighthouseOptions {
  /**
   * Entries written into the page's sessionStorage before any of its scripts runs, on every
   * document Lighthouse loads (the console's signed-in session lives there, so its fleet view
   * can be audited as a signed-in operator first sees it). Lighthouse still resets the origin's
   * storage and cache first: the run stays a cold first visit.
   */
  sessionStorage?: Record<string, string>;
}

/** Writes `entries` into sessionStorage; runs in the page (about:blank has none, hence the try). */
function fillSessionStorage(entries: Record<string, string>): void {
  try {
    for (const [key, value] of Object.entries(entries)) sessionStorage.setItem(key, value);
  } catch {
    // a document without storage
  }
}

export async function runLighthouse(url: string, options: LighthouseOptions = {}): Promise<LighthouseRun> {
  const chromium = await startChromium();
  // Lighthouse drives a page of ours (through puppeteer-core, which it uses itself), so that the
  // page can be given its session before Lighthouse navigates it.
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chromium.port}` });
  try {
    const page = await browser.newPage();
    if (options.sessionStorage) await page.evaluateOnNewDocument(fillSessionStorage, options.sessionStorage);
    const flags = { port: chromium.port, onlyCategories: ['performance'], logLevel: 'error' as const, output: 'json' as const, ...(CPU_SLOWDOWN ? { throttling: { cpuSlowdownMultiplier: CPU_SLOWDOWN } } : {}) };
    const result = await lighthouse(url, flags, undefined, page);
    if (!result) throw new Error('lighthouse returned no result');
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.message}`);
    const metrics: Record<string, string> = {};
    for (const id of METRICS) metrics[id] = lhr.audits[id]?.displayValue ?? '?';
    return { performance: Math.round((lhr.categories.performance.score ?? 0) * 100), benchmarkIndex: Math.round(lhr.environment.benchmarkIndex), metrics, opportunities: opportunitiesOf(lhr) };
  } finally {
    await browser.disconnect();
    await chromium.stop();
  }
}

/**
 * Runs Lighthouse `times` times one after another and returns the run with the median score of
 * those that finished. A run Lighthouse gives up on (on a loaded machine it can find the page
 * "stopped responding") is counted in `failures` with its reason, not thrown: the others stand.
 */
export async function medianLighthouse(url: string, times: number, options: LighthouseOptions = {}): Promise<{ median: LighthouseRun; scores: number[]; benchmarkIndexes: number[]; failures: string[] }> {
  const runs: LighthouseRun[] = [];
  const failures: string[] = [];
  for (let i = 0; i < times; i += 1) {
    try {
      runs.push(await runLighthouse(url, options));
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  if (runs.length === 0) throw new Error(`every Lighthouse run of ${url} failed: ${failures.join('; ')}`);
  const sorted = [...runs].sort((a, b) => a.performance - b.performance);
  return { median: sorted[Math.floor(sorted.length / 2)], scores: runs.map((r) => r.performance), benchmarkIndexes: runs.map((r) => r.benchmarkIndex), failures };
}

/** Lighthouse on `/` of a static build, served by the server `npm start` runs for the docs (gzip, cache headers). */
export async function staticBuildLighthouse(buildDir: string, times: number): Promise<Awaited<ReturnType<typeof medianLighthouse>>> {
  const server = createSiteServer(buildDir);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await medianLighthouse(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, times);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
