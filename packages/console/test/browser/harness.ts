/**
 * The console in real Chromium (Debian's, through playwright-core) against a real Canopy server
 * started from the server's own test harness, serving the built console (packages/console/dist).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from '../../../server/test/support/server';

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

const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Every class Mantine's complete stylesheet has rules for (its components' classes are `m_` and a hash). */
const MANTINE_CLASSES = new Set(fs.readFileSync(require.resolve('@mantine/core/styles.css'), 'utf8').match(/\bm_[0-9a-f]{8}\b/g));

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

/**
 * Fails when a Mantine component on the page has no rules loaded: the console loads only the
 * styles of the components it uses (src/ui/mantine-styles.ts), so a component added without its
 * file would be drawn unstyled. Dialogs, dropdowns and notifications count while they are open.
 */
export async function expectStyled(page: Page, screen: string): Promise<void> {
  const { used, loaded } = await page.evaluate(() => {
    const pattern = /\bm_[0-9a-f]{8}\b/g;
    const used = new Set<string>();
    for (const element of document.querySelectorAll('[class*="m_"]')) for (const name of element.classList) if (/^m_[0-9a-f]{8}$/.test(name)) used.add(name);
    const loaded = new Set<string>();
    for (const sheet of document.styleSheets) for (const rule of sheet.cssRules) for (const name of rule.cssText.match(pattern) ?? []) loaded.add(name);
    return { used: [...used], loaded: [...loaded] };
  });
  const rules = new Set(loaded);
  const unstyled = used.filter((name) => MANTINE_CLASSES.has(name) && !rules.has(name));
  expect(unstyled, `Mantine classes on ${screen} without their styles: add the component's file to src/ui/mantine-styles.ts`).toEqual([]);
}

/** axe-core on the page as it is now: fails on any moderate, serious or critical violation. Checks expectStyled too. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  await expectStyled(page, screen);
  // Colours are checked as they end up, not halfway through a fade.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  await page.addScriptTag({ content: axeSource });
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document)).violations;
  })) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'moderate' || v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.html.slice(0, 120)} ${n.failureSummary ?? ''}`).slice(0, 3).join(' | ')}`);
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

export interface ConsoleBrowser {
  readonly server: TestServer;
  readonly browser: Browser;
  /** A page of the browser, open for the whole file. */
  readonly page: Page;
  /** `/console/<path>` on the server. */
  consoleUrl(path?: string): string;
}

/**
 * A test file's set-up: a server serving the built console, Debian's Chromium and one page, made
 * before the file's tests and closed after them. Read the fields inside tests and hooks.
 */
export function useConsoleBrowser(): ConsoleBrowser {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    assertBuilt();
    server = await startTestServer({ consoleDir: consoleDist });
    browser = await launchChromium();
    page = await newPage(browser);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useConsoleBrowser: read its fields inside tests and hooks, once beforeAll has run');
    return value;
  };
  return {
    get server() {
      return ready(server);
    },
    get browser() {
      return ready(browser);
    },
    get page() {
      return ready(page);
    },
    consoleUrl: (path = '') => `${ready(server).url}/console/${path}`,
  };
}
