/**
 * The console's fleet view in Debian's Chromium (playwright-core, no downloaded browser), timed
 * as an operator meets it: from the click on Sign in to the first device rows, from the click on
 * Next page to the next page's rows, and from the click on Apply filter to the filtered rows.
 * Each round is a new browser context (empty HTTP cache and session storage: a first visit), so
 * the first rows include loading the fleet screen's chunk. Times are taken in this process
 * around playwright's waits, which watch the page for the rows (a few ms of round trips in them).
 */
import { chromium, type Page } from 'playwright-core';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROW = '[data-testid="device-row"]';

export interface FleetViewTimes {
  firstRows: number[];
  nextPage: number[];
  filteredPage: number[];
}

/** Resolves once the first device row shows a device other than `prn` (the page or filter changed). */
async function firstRowChanged(page: Page, prn: string | null): Promise<string> {
  const handle = await page.waitForFunction(
    ([selector, before]) => {
      const row = document.querySelector(selector);
      const now = row?.getAttribute('data-prn');
      return now && now !== before ? now : null;
    },
    [ROW, prn] as const,
    { timeout: 60_000, polling: 'raf' },
  );
  return (await handle.jsonValue()) as string;
}

async function timed(action: () => Promise<unknown>, until: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  await until();
  return performance.now() - started;
}

export async function timeFleetView(consoleUrl: string, apiKey: string, filter: string, rounds: number): Promise<FleetViewTimes> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const times: FleetViewTimes = { firstRows: [], nextPage: [], filteredPage: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(consoleUrl);
      await page.locator('label').filter({ hasText: /^With API key$/ }).click();
      await page.getByLabel(/^API key/).fill(apiKey);
      let first: string | null = null;
      times.firstRows.push(await timed(() => page.getByRole('button', { name: 'Sign in' }).click(), async () => (first = await firstRowChanged(page, null))));
      times.nextPage.push(await timed(() => page.getByRole('button', { name: 'Next page' }).click(), async () => (first = await firstRowChanged(page, first))));
      await page.getByLabel("Search (the admin API's search language)").fill(filter);
      times.filteredPage.push(await timed(() => page.getByRole('button', { name: 'Apply filter' }).click(), () => firstRowChanged(page, first)));
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return times;
}
