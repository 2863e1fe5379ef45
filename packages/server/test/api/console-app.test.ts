import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server';

// A stand-in build of packages/console: an index page, the fleet view's page, and hashed assets,
// one with the brotli copy the build writes (packages/console/vite-plugins/precompress.ts) and one
// whose copy is older than the file, as after a rebuild that did not write it again.
const build = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-console-'));
fs.mkdirSync(path.join(build, 'assets'));
fs.writeFileSync(path.join(build, 'index.html'), '<!doctype html><title>console</title><script src="/console/assets/index-abc123.js"></script>');
// The fleet's page starts its first requests from an inline script (vite-plugins/early-requests.ts).
const earlyScript = "window.early = fetch('/devices');";
fs.writeFileSync(path.join(build, 'fleet.html'), `<!doctype html><title>console, fleet</title><script>${earlyScript}</script><script src="/console/assets/index-abc123.js"></script>`);
const script = `console.log(${JSON.stringify('x'.repeat(5000))});`;
fs.writeFileSync(path.join(build, 'assets', 'index-abc123.js'), script);
fs.writeFileSync(path.join(build, 'assets', 'index-abc123.js.br'), brotliCompressSync(script));
fs.writeFileSync(path.join(build, 'assets', 'stale-def456.js'), script);
fs.writeFileSync(path.join(build, 'assets', 'stale-def456.js.br'), brotliCompressSync('an older build'));
fs.utimesSync(path.join(build, 'assets', 'stale-def456.js.br'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

const t = useTestServer({ consoleDir: build });

describe('the web console at /console/', () => {
  it('serves the index page without caching it, on the admin port without a key', async () => {
    const res = await fetch(`${t.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toContain('<title>console</title>');
  });

  it('answers deep links with the index page (the router draws them)', async () => {
    const res = await fetch(`${t.url}/console/devices/prn:1:abc:device:def?tab=events`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>console</title>');
  });

  it('serves hashed assets gzipped and cached for a year', async () => {
    const res = await fetch(`${t.url}/console/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await res.text()).toContain('console.log');
  });

  it('sends the brotli copy to clients that take brotli, and gzip to the others', async () => {
    const asset = `${t.url}/console/assets/index-abc123.js`;
    const brotli = await fetch(asset, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(brotli.headers.get('vary')).toBe('accept-encoding');
    expect(await brotli.text()).toBe(script);
    for (const accepts of ['gzip', 'br;q=0, gzip', 'gzip, br;q=0']) {
      const res = await fetch(asset, { headers: { 'accept-encoding': accepts } });
      expect(res.headers.get('content-encoding'), accepts).toBe('gzip');
      expect(await res.text()).toBe(script);
    }
    const plain = await fetch(asset, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(script);
  });

  it('ignores a brotli copy older than its file', async () => {
    const res = await fetch(`${t.url}/console/assets/stale-def456.js`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(await res.text()).toBe(script);
  });

  it("answers the fleet view's URL with its own page, and only that URL", async () => {
    for (const fleet of ['fleet', 'fleet?q=tags%3A%27east%27']) expect(await (await fetch(`${t.url}/console/${fleet}`)).text()).toContain('<title>console, fleet</title>');
    for (const other of ['', 'fleets', 'fleet/x', 'devices/prn:1:abc:device:def']) expect(await (await fetch(`${t.url}/console/${other}`)).text()).toContain('<title>console</title>');
  });

  it("allows the fleet page's inline script by its hash, and no inline script anywhere else", async () => {
    const scriptSources = (res: Response) => (res.headers.get('content-security-policy') ?? '').split(';').find((d) => d.startsWith('script-src '))?.split(' ').slice(1);
    const hash = `'sha256-${createHash('sha256').update(earlyScript).digest('base64')}'`;
    expect(scriptSources(await fetch(`${t.url}/console/fleet`))).toEqual(["'self'", hash]);
    expect(scriptSources(await fetch(`${t.url}/console/`))).toEqual(["'self'"]);
    expect(scriptSources(await fetch(`${t.url}/console/devices/prn:1:abc:device:def`))).toEqual(["'self'"]);
  });

  it('answers a missing asset with 404, not the index page, and never leaves the build', async () => {
    const missing = await fetch(`${t.url}/console/assets/index-old.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { errors: { code: string }[] }).errors[0].code).toBe('not_found');
    const escape = await fetch(`${t.url}/console/..%2F..%2F..%2Fetc%2Fpasswd`);
    expect(await escape.text()).not.toContain('root:');
  });

  it('redirects /console to /console/ and leaves the API where it was', async () => {
    const res = await fetch(`${t.url}/console`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    expect((await t.api('GET', '/products')).status).toBe(200);
  });
});
