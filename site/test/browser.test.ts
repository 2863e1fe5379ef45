import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations } from '../src/api/openapi';
import { hydrated, launchChromium } from './helpers/browser';
import { buildDir, expectedRoutes, repoDir } from './helpers/paths';
import { startStaticServer } from './helpers/staticServer';

let server: Awaited<ReturnType<typeof startStaticServer>>;
let browser: Browser;
let context: BrowserContext;
const requested: string[] = [];
const beacons: string[] = [];

async function fresh(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  return page;
}

beforeAll(async () => {
  server = await startStaticServer(buildDir);
  browser = await launchChromium();
  context = await browser.newContext();
  // Every request of every page is recorded, to prove browsing stays on this host.
  context.on('request', (req) => {
    requested.push(req.url());
    if (req.resourceType() === 'ping') beacons.push(req.url());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('routes', () => {
  it('answer 200 with a "Title | Canopy Docs" title for every spec route', async () => {
    const failures: string[] = [];
    for (const route of expectedRoutes()) {
      const res = await fetch(server.url + route);
      const html = await res.text();
      const title = html.match(/<title[^>]*>([^<]*)<\/title>/)?.[1] ?? '';
      if (res.status !== 200 || !/^.+ \| Canopy Docs$/.test(title)) failures.push(`${route}: ${res.status} "${title}"`);
    }
    expect(failures).toEqual([]);
  });

  it('keep their title after hydration in the browser', async () => {
    const page = await fresh();
    for (const route of ['/', '/overview', '/canopy-core/tools/admin-api', '/solutions/nxp/imx8mp', '/hardware/nxp/imx8mp/solution-overview', '/canopy-core/tools/canopy-cli/artifacts/create']) {
      await page.goto(server.url + route);
      await hydrated(page);
      // The head manager applies the page's title just after hydration.
      await expect.poll(() => page.title()).toMatch(/^.+ \| Canopy Docs$/);
    }
    await page.close();
  });

  it('show the not-found page for an unknown path', async () => {
    const page = await fresh();
    const res = await page.goto(`${server.url}/no/such/page`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Page Not Found' }).isVisible()).resolves.toBe(true);
    await page.close();
  });
});

describe('announcement bar', () => {
  it('closes, stays closed after reload, and returns when its id changes', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/overview`);
    // The server-rendered button does nothing until React has hydrated the page.
    await hydrated(page);
    const bar = page.locator('div[role="banner"]', { hasText: 'under active migration' });
    await bar.waitFor({ state: 'visible' });
    await bar.getByRole('button', { name: 'Close' }).click();
    await bar.waitFor({ state: 'hidden' });
    await page.reload();
    await hydrated(page);
    expect(await bar.isVisible()).toBe(false);
    // A stored id that differs from the configured one is what a new announcement looks like.
    await page.evaluate(() => localStorage.setItem('docusaurus.announcement.id', 'an-older-announcement'));
    await page.reload();
    await bar.waitFor({ state: 'visible' });
    await page.close();
  });
});

describe('colour mode', () => {
  it('is light and forgets a stored choice', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/overview`);
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await hydrated(page);
    expect(await page.getAttribute('html', 'data-theme')).toBe('light');
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBeNull();
    await page.close();
  });
});

describe('search', () => {
  for (const [name, press] of [
    ['Ctrl+K', (p: Page) => p.keyboard.press('Control+k')],
    ['/', (p: Page) => p.keyboard.press('/')],
  ] as const) {
    it(`opens with ${name}, finds a known page, and closes with Escape`, async () => {
      const page = await fresh();
      await page.goto(`${server.url}/overview`);
      await hydrated(page);
      await press(page);
      const dialog = page.getByRole('dialog', { name: 'Search docs' });
      await dialog.waitFor({ state: 'visible' });
      await dialog.getByRole('searchbox').fill('webhooks');
      await dialog.locator('a[href="/canopy-core/reference/integration-management/webhooks"]').first().waitFor();
      await expect(dialog.getByText(/See all \d+ results/).isVisible()).resolves.toBe(true);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await page.close();
    });
  }

  it('answers in ask mode with quoted passages, and Escape leaves ask mode before closing', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/overview`);
    await hydrated(page);
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search docs' });
    await dialog.getByRole('button', { name: 'Ask a question' }).click();
    await dialog.getByRole('searchbox').fill('how do I roll a webhook secret');
    await page.keyboard.press('Enter');
    await dialog.locator('blockquote a').first().waitFor();
    await expect(dialog.getByRole('searchbox').getAttribute('placeholder')).resolves.toBe('Ask another question...');
    await page.keyboard.press('Escape');
    await expect(dialog.isVisible()).resolves.toBe(true);
    await expect(dialog.getByRole('searchbox').getAttribute('placeholder')).resolves.toBe('Search docs');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.close();
  });

  it('shows the no-results message', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/search?q=zzqqxxnotaword`);
    await page.getByText('No results found for').waitFor();
    await expect(page.getByText('Believe this query should return results?').isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('says it could not fetch results when the index does not load', async () => {
    // A context of its own, so the failing index does not leak into the other tests.
    const offline = await browser.newContext();
    offline.on('request', (req) => requested.push(req.url()));
    await offline.route(/search-index.*\.json/, (route) => route.abort());
    const page = await offline.newPage();
    await page.goto(`${server.url}/search?q=webhooks`);
    await page.getByText('Unable to fetch results').waitFor();
    await expect(page.getByText('You might want to check your network connection.').isVisible()).resolves.toBe(true);
    await offline.close();
  });

  it('lists results on /search?q=', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/search?q=tunnels`);
    await page.locator('.search-page-results a[href="/canopy-core/reference/remote-access/tunnels"]').first().waitFor();
    await page.close();
  });
});

describe('mobile layout', () => {
  it('opens the sidebar from the hamburger at 800px and closes it on navigation', async () => {
    const page = await fresh({ width: 800, height: 900 });
    await page.goto(`${server.url}/canopy-core/guides/getting-started`);
    await hydrated(page);
    await page.getByRole('button', { name: /toggle navigation bar/i }).click();
    const sidebar = page.locator('.navbar-sidebar');
    await sidebar.waitFor({ state: 'visible' });
    await sidebar.locator('a[href="/canopy-core/guides/binary-management"]').first().click();
    await page.waitForURL(/\/canopy-core\/guides\/binary-management$/);
    await sidebar.waitFor({ state: 'hidden' });
    await page.close();
  });
});

describe('page behaviour', () => {
  it('hides the navbar on scroll down and lists headings of levels 2 and 3 in the TOC', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/avocado-os/tools/avocado-cli/commands/build`);
    await hydrated(page);
    const toc = page.locator('.table-of-contents').last();
    await expect(toc.locator('a[href="#options"]').count()).resolves.toBe(1);
    await expect(toc.locator('a[href="#common-options"]').count()).resolves.toBe(1);
    // A long page, so there is room to scroll down.
    await page.goto(`${server.url}/canopy-core/tools/admin-api`);
    await hydrated(page);
    const navbar = page.locator('nav.navbar');
    await page.mouse.move(600, 500);
    await page.mouse.wheel(0, 600);
    await page.waitForTimeout(400);
    await page.mouse.wheel(0, 600);
    await expect.poll(() => navbar.getAttribute('class'), { timeout: 5000 }).toMatch(/navbarHidden/);
    await page.close();
  });

  it('highlights shell code blocks (the extra Prism languages load with the first code block)', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/canopy-core/guides/getting-started`);
    await hydrated(page);
    const block = page.locator('div[class*="language-sh"]').first();
    await block.waitFor();
    // Without the bash grammar every token would be plain text.
    await expect(block.locator('.token:not(.plain)').count()).resolves.toBeGreaterThan(0);
    await page.close();
  });

  it('prefetches the chunks of visible links once the page is idle', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/`);
    await hydrated(page);
    await expect.poll(() => page.locator('head link[rel="prefetch"][href*="/assets/js/"]').count()).toBeGreaterThan(0);
    await page.close();
  });

  it('makes content images zoomable once the page has settled', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/canopy-core/overview`);
    // medium-zoom marks the images it attached to; the library is fetched only for such pages.
    const image = page.locator('.markdown img.medium-zoom-image').first();
    await image.waitFor({ timeout: 10_000 });
    await image.click();
    await page.locator('.medium-zoom-image--opened').waitFor();
    await page.close();
  });

  it('shows the progress bar when a route takes longer than 200 ms to load', async () => {
    const page = await fresh();
    let slow = false;
    // Scripts fetched after this point (the next route's chunks) arrive late.
    await page.route('**/assets/js/**', async (route) => {
      if (slow) await new Promise((r) => setTimeout(r, 900));
      await route.continue();
    });
    await page.goto(`${server.url}/overview`);
    await hydrated(page);
    slow = true;
    // Navigate in-app to a page nothing on /overview links to, so its chunks are not prefetched.
    await page.keyboard.press('Control+k');
    await page.getByRole('dialog', { name: 'Search docs' }).getByRole('searchbox').fill('phasing');
    await page.getByRole('dialog', { name: 'Search docs' }).locator('[role="option"]').first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.canopy-progress').waitFor({ state: 'attached', timeout: 5000 });
    await page.waitForURL((url) => url.pathname !== '/overview');
    await page.close();
  });
});

describe('crash page', () => {
  it('replaces a page that throws while rendering with "Page Error", the error and Try again, which recovers', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/overview`);
    await hydrated(page);
    // Fault injection in the browser only, so nothing test-specific ships in the site: while the
    // flag is set, creating a <table> throws inside React's render of the next page, the way a
    // component bug would. The support matrix is a table.
    await page.evaluate(() => {
      const w = window as unknown as { failTables: boolean };
      const create = Document.prototype.createElement;
      w.failTables = true;
      Document.prototype.createElement = function (this: Document, tag: string, options?: ElementCreationOptions) {
        if (w.failTables && tag.toLowerCase() === 'table') throw new Error('Simulated render failure');
        return create.call(this, tag, options);
      } as typeof create;
    });
    await page.locator('footer a[href="/hardware/support-matrix"]').click();
    await page.getByRole('heading', { name: 'This page crashed.' }).waitFor();
    await expect.poll(() => page.title()).toBe('Page Error');
    await expect(page.getByText('Simulated render failure').isVisible()).resolves.toBe(true);
    await expect(page.locator('nav.navbar').isVisible()).resolves.toBe(true);

    await page.evaluate(() => {
      (window as unknown as { failTables: boolean }).failTables = false;
    });
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.markdown table').first().waitFor();
    await expect(page.getByRole('heading', { name: 'This page crashed.' }).count()).resolves.toBe(0);
    await expect.poll(() => page.title()).toMatch(/ \| Canopy Docs$/);
    await page.close();
  });

  it('reloads the page fully when a route chunk fails to load', async () => {
    // A context of its own: the shared one's HTTP cache may already hold the next page's chunks
    // from earlier tests, and a chunk served from cache never fails.
    const isolated = await browser.newContext();
    let deployed = false;
    await isolated.route('**/assets/js/**', (route) => {
      // Prefetches are refused from the start for the same reason; once "a new deployment" has
      // happened, every script request fails, like chunks removed from the server.
      if (deployed || route.request().resourceType() !== 'script') return route.abort();
      return route.continue();
    });
    const page = await isolated.newPage();
    await page.goto(`${server.url}/overview`);
    await hydrated(page);
    deployed = true;
    const reload = page.waitForRequest((req) => req.isNavigationRequest() && new URL(req.url()).pathname === '/policies');
    await page.locator('footer a[href="/policies"]').click();
    await reload;
    await isolated.close();
  });
});

describe('API reference', () => {
  it('lists every admin operation of the OpenAPI file on the popout page', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(repoDir, 'packages/server/openapi/admin-api.json'), 'utf8'));
    const expected = listOperations(doc).map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    const page = await fresh();
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/canopy-core/tools/admin-api/popout`);
    // After hydration too: the browser keeps the reference built into the HTML, without a mismatch.
    await hydrated(page);
    const shown = await page.locator('[data-operation]').evaluateAll((els) => els.map((e) => e.getAttribute('data-operation')));
    expect(shown.sort()).toEqual(expected);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('loads none of the OpenAPI documents as JavaScript on the reference pages', async () => {
    // Texts only the documents hold: operation descriptions (plain ones, which any bundler keeps
    // byte for byte).
    const texts = ['admin-api.json', 'device-api.json'].flatMap((name) => {
      const doc = JSON.parse(fs.readFileSync(path.join(repoDir, 'packages/server/openapi', name), 'utf8'));
      return listOperations(doc)
        .map((op) => op.description ?? '')
        .filter((text) => text.length > 40 && /^[\w ,.()/-]+$/.test(text))
        .slice(0, 5);
    });
    expect(texts.length).toBeGreaterThanOrEqual(5);
    for (const route of ['/canopy-core/tools/admin-api/popout', '/canopy-core/tools/device-api/popout', '/canopy-core/tools/admin-api', '/canopy-core/tools/device-api']) {
      const page = await fresh();
      const scripts: string[] = [];
      page.on('response', (res) => {
        if (res.request().resourceType() === 'script') scripts.push(new URL(res.url()).pathname);
      });
      await page.goto(server.url + route);
      await hydrated(page);
      const carrying = scripts.filter((src) => {
        const code = fs.readFileSync(path.join(buildDir, src), 'utf8');
        return texts.some((text) => code.includes(text));
      });
      expect(carrying, route).toEqual([]);
      await page.close();
    }
  });

  it('shows the reference when reached by client-side navigation', async () => {
    const page = await fresh();
    await page.goto(`${server.url}/canopy-core/tools/admin-api`);
    await hydrated(page);
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await page.locator('article a[href="/canopy-core/tools/admin-api/popout"]').first().click();
    await page.locator('[data-operation]').first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.locator('[data-operation]').count()).toBeGreaterThan(100);
    await page.close();
  });
});

describe('network', () => {
  it('sends no request off localhost while browsing', () => {
    const origin = new URL(server.url).origin;
    const outside = requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(requested.length).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  });

  it('sends no analytics beacon when the build has no endpoint', () => {
    expect(process.env.CANOPY_ANALYTICS_ENDPOINT ?? '').toBe('');
    expect(beacons).toEqual([]);
  });
});
