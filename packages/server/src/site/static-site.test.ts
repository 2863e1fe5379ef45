import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer, resolveSitePath } from './static-site';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-site-'));
let base = '';
const server = createSiteServer(root);

beforeAll(async () => {
  fs.writeFileSync(path.join(root, 'index.html'), '<h1>home</h1>');
  fs.writeFileSync(path.join(root, '404.html'), '<h1>missing</h1>');
  fs.mkdirSync(path.join(root, 'canopy-core'));
  fs.writeFileSync(path.join(root, 'canopy-core', 'overview.html'), '<h1>overview</h1>');
  fs.writeFileSync(path.join(os.tmpdir(), 'canopy-secret.txt'), 'secret');
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('static site', () => {
  it('serves exact routes without a trailing slash', async () => {
    expect(await (await fetch(`${base}/`)).text()).toContain('home');
    const page = await fetch(`${base}/canopy-core/overview`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('overview');
  });

  it('answers unknown paths with the 404 page and status', async () => {
    const res = await fetch(`${base}/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('missing');
  });

  it('never serves a file outside the site', () => {
    expect(resolveSitePath(root, '/../canopy-secret.txt')).toBeNull();
    expect(resolveSitePath(root, '/%2e%2e/canopy-secret.txt')).toBeNull();
    expect(resolveSitePath(root, '/%00')).toBeNull();
    expect(resolveSitePath(root, '/%E0%A4%A')).toBeNull();
  });
});
