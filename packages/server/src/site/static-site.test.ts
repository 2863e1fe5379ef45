import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer, resolveSitePath } from './static-site';

const SCRIPT = `console.log(${JSON.stringify('canopy '.repeat(2000))});`;

/** A raw GET (fetch would decode the body itself), with the given accept-encoding. */
function get(url: string, acceptEncoding?: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-site-'));
let base = '';
const server = createSiteServer(root, { webConsole: { url: null, adminPort: 4100 } });

beforeAll(async () => {
  fs.writeFileSync(path.join(root, 'index.html'), '<h1>home</h1>');
  fs.writeFileSync(path.join(root, '404.html'), '<h1>missing</h1>');
  fs.mkdirSync(path.join(root, 'canopy-core'));
  fs.writeFileSync(path.join(root, 'canopy-core', 'overview.html'), '<h1>overview</h1>');
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'assets', 'main.js'), SCRIPT);
  fs.writeFileSync(path.join(root, 'assets', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
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

  it('gzips text files for clients that accept it, and only for them', async () => {
    for (let i = 0; i < 2; i += 1) {
      const zipped = await get(`${base}/assets/main.js`, 'gzip, deflate, br');
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toBe('accept-encoding');
      expect(zipped.body.length).toBeLessThan(SCRIPT.length / 10);
      expect(gunzipSync(zipped.body).toString()).toBe(SCRIPT);
    }
    const plain = await get(`${base}/assets/main.js`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    const missing = await get(`${base}/nowhere`, 'gzip');
    expect(missing.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(missing.body).toString()).toContain('missing');
    const image = await get(`${base}/assets/logo.png`, 'gzip');
    expect(image.headers['content-encoding']).toBeUndefined();
    expect(image.body.length).toBe(4);
  });

  it('never serves a file outside the site', () => {
    expect(resolveSitePath(root, '/../canopy-secret.txt')).toBeNull();
    expect(resolveSitePath(root, '/%2e%2e/canopy-secret.txt')).toBeNull();
    expect(resolveSitePath(root, '/%00')).toBeNull();
    expect(resolveSitePath(root, '/%E0%A4%A')).toBeNull();
  });
});

describe('/web-console', () => {
  it('redirects to the console of the admin server beside the site', async () => {
    const res = await get(`${base}/web-console`);
    expect(res.headers.location).toBe('http://127.0.0.1:4100/console/');
  });
});
