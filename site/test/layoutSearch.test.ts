/**
 * Phone layout on every route, the not-found page, and the search dialog's behaviour while its
 * code and index load (Debian's Chromium against the built site).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hydrated, launchChromium } from './helpers/browser';
import { buildDir, expectedRoutes } from './helpers/paths';
import { startStaticServer } from './helpers/staticServer';

let server: Awaited<ReturnType<typeof startStaticServer>>;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  server = await startStaticServer(buildDir);
  browser = await launchChromium();
  context = await browser.newContext();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** In the page: how far it scrolls sideways, and the words of its titles split across lines. */
function measure(): { overflow: number; widest: string; brokenWords: string[] } {
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  let widest = '';
  if (overflow > 0) {
    // Name the element that sticks out furthest, for the failure message.
    let right = 0;
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.right > right && r.width > 0) {
        let clipped = false;
        for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
          const style = getComputedStyle(p);
          if (style.overflowX !== 'visible' && p.scrollWidth > p.clientWidth) clipped = true;
        }
        if (!clipped) {
          right = r.right;
          widest = `${el.tagName.toLowerCase()}.${String(el.className).split(' ')[0]} (${Math.round(r.right)}px)`;
        }
      }
    }
  }
  const brokenWords: string[] = [];
  for (const title of Array.from(document.querySelectorAll('h1, .hero__title'))) {
    const walker = document.createTreeWalker(title, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      // A break after a hyphen or slash is a break between words ("artifact-|versions").
      for (const match of text.matchAll(/[^\s/-]+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (lines.size > 1) brokenWords.push(match[0]);
      }
    }
  }
  return { overflow, widest, brokenWords };
}

describe('phone layout (390 px)', () => {
  it('no route scrolls sideways, and titles break only between words', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const failures: string[] = [];
    for (const route of expectedRoutes()) {
      await page.goto(server.url + route, { waitUntil: 'load' });
      const { overflow, widest, brokenWords } = await page.evaluate(measure);
      if (overflow > 1) failures.push(`${route}: ${overflow}px sideways, widest ${widest}`);
      if (brokenWords.length) failures.push(`${route}: title words split across lines: ${brokenWords.join(', ')}`);
    }
    expect(failures).toEqual([]);
    await page.close();
  }, 600_000);

  it('the support matrix scrolls inside its own box', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/hardware/support-matrix`);
    const box = page.locator('.support-matrix');
    const [scroll, client] = await box.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scroll).toBeGreaterThan(client);
    await page.close();
  });
});

describe('not-found page', () => {
  it('is titled "Page Not Found | Canopy Docs" and offers search and the main sections', async () => {
    const html = await (await fetch(`${server.url}/no/such/page`)).text();
    expect(html).toMatch(/<title[^>]*>Page Not Found \| Canopy Docs<\/title>/);
    const page = await context.newPage();
    await page.goto(`${server.url}/no/such/page`);
    await hydrated(page);
    expect(await page.title()).toBe('Page Not Found | Canopy Docs');
    const main = page.locator('main');
    await expect(main.getByRole('button', { name: 'Search docs' }).count()).resolves.toBe(1);
    for (const href of ['/overview', '/canopy-core/guides/getting-started', '/avocado-os/guides/getting-started', '/hardware/support-matrix']) {
      await expect(main.locator(`a[href="${href}"]`).count()).resolves.toBe(1);
    }
    await main.getByRole('button', { name: 'Search docs' }).click();
    await page.getByRole('dialog', { name: 'Search docs' }).waitFor();
    await page.close();
  });
});

describe('search while its code and index load', () => {
  it('keeps what was typed before the dialog code arrived, and the page does not scroll', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/canopy-core/guides/getting-started`);
    await hydrated(page);
    // From now on every script arrives late (routing also bypasses the cache the prefetch filled).
    await page.route(/\.js(\?|$)/, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.keyboard.press('Control+k');
    await page.keyboard.type('release chain', { delay: 20 });
    const dialog = page.getByRole('dialog', { name: 'Search docs' });
    await dialog.locator('a[href^="/"]').first().waitFor({ timeout: 20_000 });
    await expect(dialog.getByRole('searchbox').inputValue()).resolves.toBe('release chain');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.mouse.move(640, 700);
    await page.mouse.wheel(0, 1200);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.close();
  });

  it('shows each result\'s section, so pages with the same title differ', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/overview`);
    await hydrated(page);
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search docs' });
    await dialog.getByRole('searchbox').fill('create');
    await dialog.locator('[role="option"]').first().waitFor();
    const sections = await dialog.locator('[role="option"] .search-section').allTextContents();
    expect(sections.length).toBeGreaterThan(0);
    expect(sections.every((s) => s.length > 0)).toBe(true);
    expect(sections.some((s) => s.includes('Canopy Core › Tools'))).toBe(true);
    await page.close();
  });

  it('says it could not fetch results in the dialog when the index does not load', async () => {
    const offline = await browser.newContext();
    await offline.route(/search-index.*\.json/, (route) => route.abort('internetdisconnected'));
    const page = await offline.newPage();
    await page.goto(`${server.url}/overview`);
    await hydrated(page);
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search docs' });
    await dialog.getByRole('searchbox').fill('webhooks');
    await dialog.getByText('Unable to fetch results').waitFor({ timeout: 20_000 });
    await expect(dialog.getByText('You might want to check your network connection.').isVisible()).resolves.toBe(true);
    await expect(dialog.getByText('Searching...').count()).resolves.toBe(0);
    await offline.close();
  });
});

describe('/search?q=', () => {
  it('hydrates without a mismatch', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/search?q=tunnels`);
    await hydrated(page);
    await page.locator('.search-page-results a').first().waitFor();
    expect(errors.filter((e) => /hydrat|#418|#423|#425/i.test(e))).toEqual([]);
    await page.close();
  });
});
