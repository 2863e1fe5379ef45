/**
 * What the fleet view's first load fetches, and when (bench/console.ts measures how fast): the
 * fleet's own URL draws the screen's frame from its HTML and names the screen's code there, the
 * code comes brotli-compressed from the build's `.br` files, its first requests start from its
 * HTML before the code arrives, and what the first picture does not show (the live event stream,
 * the notifications host) is asked for only once the rows are drawn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { EARLY_FLEET_PATHS } from '../../vite-plugins/early-requests';
import type { Page } from 'playwright-core';
import { consoleDist, newPage, signInWith, useConsoleBrowser } from './harness';

const t = useConsoleBrowser();

beforeAll(async () => {
  const product = (await t.server.api('POST', '/products', { name: 'meter' })).body.product;
  for (const identifier of ['meter-1', 'meter-2', 'meter-3']) await t.server.api('POST', '/devices', { identifier, product_prn: product.prn });
});

/** The fleet screen's files a page's HTML names (fleet.html's script preloads them). */
const screenScripts = (html: string) => [...html.matchAll(/"\/console\/(assets\/FleetScreen-[\w-]+\.js)"/g)].map((m) => m[1]);

const frame = (page: Page) => page.locator('[data-fleet-frame]');

describe("the fleet view's first load", () => {
  it('names the fleet screen’s code from /console/fleet only, and the browser fetches it once', async () => {
    const fleetHtml = await (await fetch(t.consoleUrl('fleet?q=x'))).text();
    const [screen] = screenScripts(fleetHtml);
    expect(screen).toMatch(/^assets\/FleetScreen-[\w-]+\.js$/);
    expect(fs.existsSync(path.join(consoleDist, screen))).toBe(true);
    // The sign-in page and other screens do not pay for the fleet's bytes.
    expect(screenScripts(await (await fetch(t.consoleUrl())).text())).toEqual([]);
    expect(screenScripts(await (await fetch(t.consoleUrl('releases'))).text())).toEqual([]);

    await signInWith(t.page, t.consoleUrl(), t.server.apiKey);
    // Signing in draws the fleet, fetching its code: done before this page's requests are counted.
    await expect.poll(() => t.page.getByTestId('device-row').count()).toBe(3);
    const fetched: string[] = [];
    const encodings = new Map<string, string | undefined>();
    t.page.on('response', (response) => {
      const url = new URL(response.url());
      if (!url.pathname.startsWith('/console/assets/')) return;
      fetched.push(url.pathname);
      encodings.set(url.pathname, response.headers()['content-encoding']);
    });
    await t.page.goto(t.consoleUrl('fleet'));
    await expect.poll(() => t.page.getByTestId('device-row').count()).toBe(3);
    expect(fetched.filter((p) => p === `/console/${screen}`)).toHaveLength(1);
    // Chromium accepts brotli, and the build wrote a .br beside every script of 1 KiB or more.
    expect(encodings.get(`/console/${screen}`)).toBe('br');
    for (const [asset, encoding] of encodings) if (fs.existsSync(path.join(consoleDist, `${asset.slice('/console/'.length)}.br`))) expect(encoding, asset).toBe('br');
  });

  it('paints the frame from its HTML before the code has run, inert, and the first render replaces it', async () => {
    const page = await newPage(t.browser);
    await signInWith(page, t.consoleUrl(), t.server.apiKey);
    // The code held back: what is on screen is fleet.html's own.
    await page.route('**/console/assets/*.js', (route) => route.abort());
    await page.goto(t.consoleUrl('fleet'));
    await expect.poll(() => frame(page).isVisible()).toBe(true);
    expect(await frame(page).getAttribute('inert')).not.toBeNull();
    expect(await frame(page).getByRole('heading', { level: 1, includeHidden: true }).textContent()).toBe('Fleet');
    expect(await frame(page).getByRole('status', { name: 'Loading devices', includeHidden: true }).count()).toBe(1);
    // Who is signed in comes from the session: the frame says what the console's header says.
    const signedInAs = await frame(page).getByTestId('signed-in-as').textContent();
    expect(signedInAs).toMatch(/\(admin\)$/);
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'))).toBe('light');

    await page.unroute('**/console/assets/*.js');
    await page.goto(t.consoleUrl('fleet'));
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(3);
    expect(await frame(page).count()).toBe(0);
    expect(await page.getByTestId('signed-in-as').textContent()).toBe(signedInAs);
    await page.close();
  });

  it('keeps the frame hidden without a session, and draws the sign-in page', async () => {
    const page = await newPage(t.browser);
    await page.route('**/console/assets/*.js', (route) => route.abort());
    await page.goto(t.consoleUrl('fleet'));
    await page.waitForLoadState('load');
    expect(await frame(page).count()).toBe(1);
    expect(await frame(page).isVisible()).toBe(false);
    await page.unroute('**/console/assets/*.js');
    await page.goto(t.consoleUrl('fleet'));
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await frame(page).count()).toBe(0);
    await page.close();
  });

  it("does not fetch the fleet screen's code for the sign-in page, even once the notifications host has loaded", async () => {
    const signedOut = await newPage(t.browser);
    const scripts: string[] = [];
    signedOut.on('request', (request) => {
      if (request.url().endsWith('.js')) scripts.push(new URL(request.url()).pathname);
    });
    const notificationsHost = signedOut.waitForResponse((response) => /\/assets\/NotificationsHost-[\w-]+\.js$/.test(response.url()));
    await signedOut.goto(t.consoleUrl());
    await signedOut.getByRole('button', { name: 'Sign in' }).waitFor();
    await notificationsHost;
    expect(scripts.filter((p) => p.includes('/assets/FleetScreen-'))).toEqual([]);
    await signedOut.close();
  });

  it("starts the fleet's first requests from its page, within the page's policy, and the console takes each answer once", async () => {
    const page = await newPage(t.browser);
    await signInWith(page, t.consoleUrl(), t.server.apiKey);
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(3);
    const asked: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!url.pathname.startsWith('/console')) asked.push(url.pathname + url.search);
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(t.consoleUrl('fleet'));
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(3);
    await page.getByTestId('fleet-counts').waitFor();
    expect(refused).toEqual([]);
    // The inline script ran (the policy allowed it) and every answer it asked for was taken.
    expect(await page.evaluate(() => window.canopyEarlyResponses && Object.keys(window.canopyEarlyResponses))).toEqual([]);
    for (const early of EARLY_FLEET_PATHS) expect(asked.filter((p) => p === early), early).toHaveLength(1);

    // A filtered page is asked for by the console itself, once.
    asked.length = 0;
    await page.goto(t.consoleUrl(`fleet?q=${encodeURIComponent("identifier:'meter-1'")}`));
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(1);
    expect(await page.evaluate(() => window.canopyEarlyResponses)).toBeUndefined();
    expect(asked.filter((p) => p.startsWith('/devices?'))).toHaveLength(1);
    await page.close();
  });

  it('asks for the counts with the rows, and for the event stream only after the rows are drawn', async () => {
    // By the page's own clock: the moment the first device row enters the page, and when each
    // request is made (a stream's resource timing only appears once it ends, so fetch is watched).
    await t.page.addInitScript(() => {
      const seen = window as unknown as { rowsAt: number; requested: { path: string; at: number }[] };
      seen.requested = [];
      const fetchOf = window.fetch.bind(window);
      window.fetch = (input, init) => {
        seen.requested.push({ path: new URL(input instanceof Request ? input.url : String(input), location.href).pathname, at: performance.now() });
        return fetchOf(input, init);
      };
      new MutationObserver((_, observer) => {
        if (!document.querySelector('[data-testid="device-row"]')) return;
        seen.rowsAt = performance.now();
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    await t.page.goto(t.consoleUrl('fleet'));
    await t.page.getByTestId('fleet-counts').waitFor();
    await t.page.getByText('Live', { exact: true }).waitFor();
    const { rowsAt, requested } = await t.page.evaluate(() => {
      const seen = window as unknown as { rowsAt: number; requested: { path: string; at: number }[] };
      return { rowsAt: seen.rowsAt, requested: seen.requested };
    });
    const startOf = (pathname: string) => requested.find((entry) => entry.path === pathname)?.at;
    expect(rowsAt).toBeGreaterThan(0);
    expect(startOf('/devices')).toBeLessThan(rowsAt);
    expect(startOf('/devices/counts')).toBeLessThan(rowsAt);
    expect(startOf('/events/stream')).toBeGreaterThan(rowsAt);
  });
});

describe('the build', () => {
  it('writes a brotli copy beside each script and stylesheet of 1 KiB or more, with the same bytes inside', () => {
    const assets = path.join(consoleDist, 'assets');
    const texts = fs.readdirSync(assets).filter((name) => /\.(js|css)$/.test(name) && fs.statSync(path.join(assets, name)).size >= 1024);
    expect(texts.length).toBeGreaterThan(5);
    for (const name of texts) {
      const original = fs.readFileSync(path.join(assets, name));
      expect(brotliDecompressSync(fs.readFileSync(path.join(assets, `${name}.br`))).equals(original), name).toBe(true);
    }
  });
});
