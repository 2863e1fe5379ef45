import { chromium, type Browser, type Page } from 'playwright-core';

// Debian's Chromium with the flags that keep it off the network on its own account.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Waits until the page is idle and React has hydrated it (Docusaurus then marks <html>). */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
}
