import { describe, expect, it } from 'vitest';
import { expectFieldError } from '../support/resource-checks';
import { onTestServer, useTestServer } from '../support/server';
import { createTestDevice } from '../support/tunnels';

const t = useTestServer();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The url is absolute on the server's public URL; the test server's port is its own. */
const open = (url: string) => fetch(onTestServer(t, url));

describe('web console shells', () => {
  it('answers a one-time url that works exactly once, even when used concurrently', async () => {
    const device = await createTestDevice(t, 'console-device');
    const created = await t.api('POST', '/web-console-shells', { device_prn: device });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The public API's shape: url and expires_at at the top level, no wrapper.
    const shell = created.body;
    expect(shell.web_console_shell).toBeUndefined();
    expect(shell).toMatchObject({ device_prn: device, url: expect.stringMatching(/^http.*\/web-console\/shells\/[A-Za-z0-9_-]{43}$/) });
    expect(Date.parse(shell.expires_at) - Date.now()).toBeGreaterThan(3500_000);

    const uses = await Promise.all(Array.from({ length: 5 }, () => open(shell.url)));
    expect(uses.map((r) => r.status).sort()).toEqual([200, 410, 410, 410, 410]);
    const winner = uses.find((r) => r.status === 200)!;
    expect(((await winner.json()) as any).web_console_session).toMatchObject({ shell_prn: shell.prn, device_prn: device });
    const later = await open(shell.url);
    expect(later.status).toBe(410);
    expect(((await later.json()) as any).errors[0].code).toBe('web_console_shell_used');
    expect((await open(shell.url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')))).status).toBe(404);
  });

  it('names the device by identifier and organization, and never works after expiry', async () => {
    await createTestDevice(t, 'console-by-identifier');
    const byIdentifier = await t.api('POST', '/web-console-shells', { device_identifier: 'console-by-identifier', organization_prn: `prn:1:${t.organizationId}`, ttl: 1 });
    expect(byIdentifier.status, JSON.stringify(byIdentifier.body)).toBe(201);
    await sleep(1200);
    const expired = await open(byIdentifier.body.url);
    expect(expired.status).toBe(410);
    expect(((await expired.json()) as any).errors[0].code).toBe('web_console_shell_expired');

    const zero = await t.api('POST', '/web-console-shells', { device_identifier: 'console-by-identifier', organization_prn: `prn:1:${t.organizationId}`, ttl: 0 });
    expect(zero.status).toBe(201);
    expect((await open(zero.body.url)).status).toBe(410);
  });

  it('refuses a missing or foreign device and a ttl out of range', async () => {
    const device = await createTestDevice(t);
    expectFieldError(await t.api('POST', '/web-console-shells', {}), 'device_prn', 'required');
    expectFieldError(await t.api('POST', '/web-console-shells', { device_identifier: 'console-device' }), 'organization_prn', 'required');
    expectFieldError(await t.api('POST', '/web-console-shells', { device_identifier: 'nope', organization_prn: `prn:1:${t.organizationId}` }), 'device_identifier', 'not_found');
    expectFieldError(await t.api('POST', '/web-console-shells', { device_prn: device, ttl: 86401 }), 'ttl', 'out_of_range');
    expectFieldError(await t.api('POST', '/web-console-shells', { device_prn: device, ttl: -1 }), 'ttl', 'out_of_range');
    const other = await t.createOrganization();
    expectFieldError(await other.api('POST', '/web-console-shells', { device_prn: device }), 'device_prn', 'not_found');
    expectFieldError(await other.api('POST', '/web-console-shells', { device_identifier: 'console-device', organization_prn: `prn:1:${t.organizationId}` }), 'organization_prn', 'not_found');
    const readKey = await t.keyWithRole('read');
    expect((await t.api('POST', '/web-console-shells', { device_prn: device }, { key: readKey })).status).toBe(403);
  });
});
