/**
 * Security headers on what browsers load (the admin API, where the console lives, and the
 * documentation site), and no secret in the logs: a real server process at debug level runs a
 * full flow with every kind of key, secret and password, and its whole output is searched for
 * each of them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../../src/site/static-site';
import { controlCharacterRequests, sendAll } from '../support/control-character-paths';
import { createTestDatabase } from '../support/database';
import { freePort, spawnServer, type ServerProcess } from '../support/server-process';
import { startReceiver } from '../support/webhook-receiver';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function expectBrowserHeaders(headers: Headers | http.IncomingHttpHeaders): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined)) ?? null;
  expect(get('content-security-policy')).toMatch(/default-src 'self'/);
  expect(get('content-security-policy')).toMatch(/object-src 'none'/);
  expect(get('x-content-type-options')).toBe('nosniff');
  expect(get('x-frame-options')).toBe('SAMEORIGIN');
  expect(get('referrer-policy')).toBe('no-referrer');
  expect(get('cross-origin-opener-policy')).toBe('same-origin');
  expect(get('x-powered-by')).toBeNull();
}

describe('security headers', () => {
  it('are on the documentation site, with a CSP that admits the Docusaurus build and the beacon endpoint', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-site-headers-'));
    fs.writeFileSync(path.join(root, 'index.html'), '<script>document.documentElement.dataset.theme="light"</script><h1>docs</h1>');
    const site = createSiteServer(root, { analyticsEndpoint: 'https://beacons.example.org/collect' });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => site.close(() => resolve())), () => fs.rmSync(root, { recursive: true, force: true }));
    const base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    for (const page of ['/', '/missing-page']) {
      const res = await fetch(`${base}${page}`);
      expectBrowserHeaders(res.headers);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self' 'unsafe-inline'");
      expect(csp).toContain("connect-src 'self' https://beacons.example.org");
      expect(csp).toContain("frame-ancestors 'self'");
    }
  });
});

describe('a full flow at debug level', () => {
  let server: ServerProcess;
  let bootstrapKey = '';
  let output = '';

  it('sends helmet headers from the admin API, and writes none of the keys, secrets and passwords it handled to its logs', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-logs-'));
    const receiver = await startReceiver();
    cleanups.push(() => server?.kill('SIGKILL'), () => database.drop(), () => fs.rmSync(dataDir, { recursive: true, force: true }), () => receiver.close());
    bootstrapKey = `cnpy_logs_${randomBytes(24).toString('base64url')}`;
    const secretKey = randomBytes(32).toString('hex');
    server = await spawnServer(
      {
        CANOPY_DATA_DIR: dataDir,
        CANOPY_LOG_LEVEL: 'debug',
        CANOPY_BOOTSTRAP_API_KEY: bootstrapKey,
        CANOPY_SECRET_KEY: secretKey,
        CANOPY_WEBHOOK_ALLOW_PRIVATE: '1',
        CANOPY_WEBHOOK_CA_FILE: receiver.caFile,
        ...(database.url ? { DATABASE_URL: database.url } : {}),
      },
      await freePort(),
    );
    // What it printed while starting (the first-start announcement), then everything after.
    output = server.stderr();
    server.child.stdout!.on('data', (chunk) => (output += chunk));
    server.child.stderr!.on('data', (chunk) => (output += chunk));
    const api = async (method: string, url: string, body?: unknown, key = bootstrapKey) => {
      const res = await fetch(`${server.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
    };

    const health = await api('GET', '/healthz');
    expectBrowserHeaders(health.headers);
    expectBrowserHeaders((await api('GET', '/console/')).headers);

    const secrets: Record<string, string> = { bootstrapKey, secretKey };
    secrets.apiKey = (await api('POST', '/api_keys', { name: 'ci', role: 'write', kind: 'current' })).body.api_key.key;
    const password = `pw-${randomUUID()}`;
    secrets.password = password;
    const username = `ops-${randomUUID().slice(0, 6)}`;
    expect((await api('POST', '/users', { username, password, role: 'admin' })).status).toBe(201);
    expect((await api('POST', '/users/auth', { username, password: `${password}-wrong` }, '')).status).toBe(401);
    const session = await api('POST', '/users/auth', { username, password }, '');
    expect(session.status).toBe(200);
    secrets.sessionToken = session.body.data.token;
    expect((await api('GET', '/users/me', undefined, secrets.sessionToken)).status).toBe(200);
    expect((await api('GET', '/products', undefined, `${secrets.apiKey}x`)).status).toBe(401);
    const webhook = await api('POST', '/webhooks', { url: receiver.url, enabled_events: ['webhook.test_fire'] }, secrets.sessionToken);
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    secrets.webhookSecret = webhook.body.webhook.secret;
    const rolled = await api('POST', `/webhooks/${webhook.body.webhook.prn}/roll_secret`, {});
    secrets.rolledWebhookSecret = rolled.body.webhook?.secret ?? rolled.body.secret;
    expect(secrets.rolledWebhookSecret, JSON.stringify(rolled.body)).toEqual(expect.any(String));
    expect((await api('POST', `/webhooks/${webhook.body.webhook.prn}/test_fire`, {})).status).toBeLessThan(300);
    const product = await api('POST', '/products', { name: 'logs' });
    const device = await api('POST', '/devices', { identifier: 'logs-device', product_prn: product.body.product.prn });
    const shell = await api('POST', '/web-console-shells', { device_prn: device.body.device.prn });
    expect(shell.status, JSON.stringify(shell.body)).toBe(201);
    secrets.consoleToken = String(shell.body.url).split('/').pop()!;
    expect((await fetch(`${server.url}/web-console/shells/${secrets.consoleToken}`)).status).toBe(200);
    await api('GET', '/healthz');

    const announcement = /\nCanopy created organization[\s\S]*?\n\n/;
    expect(output).toMatch(announcement);
    // The first start prints the first key and admin password once, on purpose; nothing else may.
    const logs = output.replace(announcement, '\n');
    expect(logs.length).toBeGreaterThan(1000);
    const found = Object.entries(secrets).filter(([, value]) => value && logs.includes(value)).map(([name]) => name);
    expect(found, 'secrets written to the logs').toEqual([]);
    expect(logs).not.toMatch(/authorization|bearer /i);
  });

  it('answers control characters in every path parameter of every route without a 5xx, and logs no stack trace for them', async () => {
    const from = output.length;
    const document = await (await fetch(`${server.url}/openapi.json`)).json();
    const answers = await sendAll(server.url, controlCharacterRequests(document), { authorization: `Bearer ${bootstrapKey}` });
    expect(answers.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.request.method} ${a.request.path}`)).toEqual([]);
    await fetch(`${server.url}/healthz`);
    const logs = output.slice(from);
    expect(logs).toContain('"statusCode":400');
    expect(logs).not.toMatch(/"stack"|\n\s+at |"level":50/);
  });
});
