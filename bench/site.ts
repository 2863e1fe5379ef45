// Docs-site benchmark: build time of the whole site, and the JavaScript a browser must load
// for /canopy-core/overview, each beside the stock Docusaurus classic template built in the
// same run with the same Docusaurus version; then the Lighthouse performance score of `/` as the
// platform serves it (`npm start`'s site server), median of three runs. Run: `npm run bench:site`
// (Debian chromium needed). Set BENCH_SKIP_BUILD=1 to measure existing builds only.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { staticBuildLighthouse, type LighthouseRun } from './lib/lighthouse';
import { launchChromium } from '../site/test/helpers/browser';
import { startStaticServer } from '../site/test/helpers/staticServer';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const siteDir = path.join(repoDir, 'site');
// Inside the repository so the template resolves Docusaurus from the shared node_modules.
const stockDir = path.join(repoDir, 'bench/.stock-site');
const DOCUSAURUS_VERSION = '3.10.2';
const TARGET_RATIO = 1.2;
const TARGET_LIGHTHOUSE = 95;
const LIGHTHOUSE_RUNS = 3;

function prepareStock(): void {
  if (fs.existsSync(path.join(stockDir, 'docusaurus.config.js'))) return;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-stock-'));
  execFileSync('npm', ['pack', `create-docusaurus@${DOCUSAURUS_VERSION}`, '--pack-destination', tmp], { stdio: 'ignore' });
  execFileSync('tar', ['-xzf', path.join(tmp, `create-docusaurus-${DOCUSAURUS_VERSION}.tgz`), '-C', tmp]);
  fs.cpSync(path.join(tmp, 'package/templates/shared'), stockDir, { recursive: true });
  fs.cpSync(path.join(tmp, 'package/templates/classic'), stockDir, { recursive: true });
  fs.rmSync(tmp, { recursive: true, force: true });
}

function timedBuild(label: string, args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  const run = spawnSync('npx', args, { cwd, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CANOPY_SKIP_OPENAPI: '1' } });
  if (run.status !== 0) throw new Error(`${label} build failed`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * JavaScript a browser really fetches for a first visit: the page is opened in Chromium and
 * every script response until the network is idle is counted (entry, runtime and the route's
 * chunks loaded before hydration), raw and gzip-compressed.
 */
async function firstLoadJs(buildDir: string, route: string): Promise<{ files: number; raw: number; gzip: number }> {
  const server = await startStaticServer(buildDir);
  const browser = await launchChromium();
  const page = await browser.newPage();
  const scripts = new Set<string>();
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') scripts.add(new URL(res.url()).pathname);
  });
  await page.goto(server.url + route);
  await page.waitForLoadState('networkidle');
  await browser.close();
  await server.close();
  let raw = 0;
  let gzip = 0;
  for (const src of scripts) {
    const body = fs.readFileSync(path.join(buildDir, src));
    raw += body.length;
    gzip += gzipSync(body).length;
  }
  return { files: scripts.size, raw, gzip };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

// A function, not top-level await: the root package compiles .ts files as CommonJS.
async function main(): Promise<void> {
  prepareStock();
  const skipBuild = process.env.BENCH_SKIP_BUILD === '1';
  const siteSeconds = skipBuild ? NaN : timedBuild('site', ['npm', 'run', 'build'], siteDir);
  const stockSeconds = skipBuild ? NaN : timedBuild('stock', ['docusaurus', 'build'], stockDir);
  const ours = await firstLoadJs(path.join(siteDir, 'build'), '/canopy-core/overview');
  const stock = await firstLoadJs(path.join(stockDir, 'build'), '/docs/intro');
  const ratio = ours.gzip / stock.gzip;
  const lighthouse = await staticBuildLighthouse(path.join(siteDir, 'build'), LIGHTHOUSE_RUNS);
  const stockLighthouse = await staticBuildLighthouse(path.join(stockDir, 'build'), LIGHTHOUSE_RUNS);

  console.log('| measure | Canopy site | stock classic template | ratio |');
  console.log('| --- | --- | --- | --- |');
  const routes = JSON.parse(fs.readFileSync(path.join(siteDir, 'routes.json'), 'utf8')).routes.length;
  if (skipBuild) console.log(`| build time | not measured (BENCH_SKIP_BUILD=1; ${routes} routes) | | |`);
  else console.log(`| build time | ${siteSeconds.toFixed(1)} s (${routes} routes) | ${stockSeconds.toFixed(1)} s | ${(siteSeconds / stockSeconds).toFixed(2)}x |`);
  console.log(`| first-load JS, gzip | ${kb(ours.gzip)} (${ours.files} files) | ${kb(stock.gzip)} (${stock.files} files) | ${ratio.toFixed(2)}x |`);
  console.log(`| first-load JS, raw | ${kb(ours.raw)} | ${kb(stock.raw)} | ${(ours.raw / stock.raw).toFixed(2)}x |`);
  console.log(`| Lighthouse performance of /, median of ${LIGHTHOUSE_RUNS} | ${lighthouse.median.performance} (runs: ${lighthouse.scores.join(', ')}) | ${stockLighthouse.median.performance} (runs: ${stockLighthouse.scores.join(', ')}) | |`);
  const metrics = (run: LighthouseRun) => Object.entries(run.metrics).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`\nLighthouse metrics of the median run: Canopy site: ${metrics(lighthouse.median)}; stock: ${metrics(stockLighthouse.median)}`);
  console.log(`Lighthouse benchmarkIndex of this machine (CPU speed; lower when loaded): Canopy site runs ${lighthouse.benchmarkIndexes.join(', ')}; stock runs ${stockLighthouse.benchmarkIndexes.join(', ')}`);
  console.log(`load average while measuring: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`first-load JS target: at most ${TARGET_RATIO}x the stock template: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`);
  console.log(`Lighthouse target: at least ${TARGET_LIGHTHOUSE} on /: ${lighthouse.median.performance >= TARGET_LIGHTHOUSE ? 'met' : 'NOT met'}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
