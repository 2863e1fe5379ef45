/**
 * The console in real Chromium (Debian's, through playwright-core) against a real Canopy server
 * started from the server's own test harness, serving the built console (packages/console/dist).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const consoleDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

export function assertBuilt(): void {
  if (!fs.existsSync(path.join(consoleDist, 'index.html'))) throw new Error('packages/console/dist is missing: run `npm run build -w @canopy/console` (npm test does)');
}

// Debian's Chromium with the flags that keep it off the network on its own account (as site/test/helpers/browser.ts).
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * A page that lets axe-core be injected: the server's Content-Security-Policy (script-src 'self')
 * refuses inline scripts, axe's own included. Only the test's injection is exempt; the console
 * itself runs under the policy.
 */
export function newPage(browser: Browser): Promise<Page> {
  return browser.newPage({ bypassCSP: true });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

/** axe-core on the page as it is now: fails on any serious or critical violation. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  // Colours are checked as they end up, not halfway through a fade.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  await page.addScriptTag({ content: axeSource });
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document)).violations;
  })) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.html.slice(0, 120)} ${n.failureSummary ?? ''}`).slice(0, 3).join(' | ')}`);
  expect(serious, `axe on ${screen}`).toEqual([]);
}

/** Signs in on the console at `consoleUrl` by pasting an API key. */
export async function signInWith(target: Page, consoleUrl: string, key: string): Promise<void> {
  await target.goto(consoleUrl);
  await target.locator('label').filter({ hasText: /^With API key$/ }).click();
  await target.getByLabel(/^API key/).fill(key);
  await target.getByRole('button', { name: 'Sign in' }).click();
  await target.getByTestId('signed-in-as').waitFor();
}

/** Answers the ConfirmButton's dialog. */
export async function confirmDialog(target: Page): Promise<void> {
  await target.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await target.getByRole('dialog').waitFor({ state: 'detached' });
}
