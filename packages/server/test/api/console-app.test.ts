import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server';

// A stand-in build of packages/console: an index page and one hashed asset.
const build = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-console-'));
fs.mkdirSync(path.join(build, 'assets'));
fs.writeFileSync(path.join(build, 'index.html'), '<!doctype html><title>console</title><script src="/console/assets/index-abc123.js"></script>');
fs.writeFileSync(path.join(build, 'assets', 'index-abc123.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);

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
