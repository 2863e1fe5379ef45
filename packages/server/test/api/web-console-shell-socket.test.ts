/**
 * The shell URL in a browser's way, without a device: the page redirect (nothing used up), the
 * WebSocket that is the URL's one use, the tunnel it requests (device_tunnel_port 0), the
 * session's events in the organization's log only, and its end when the browser leaves or the
 * tunnel closes. The relay through a real tunnel to a real PTY is tested in network namespaces
 * (packages/console/test/browser/shell.test.ts).
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useTestServer } from '../support/server';
import { createTestDevice } from '../support/tunnels';

const t = useTestServer();

interface Opened {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

function openSocket(url: string, headers: Record<string, string> = {}): Opened {
  const token = url.split('/').pop()!;
  const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/web-console/shells/${token}/socket`, { headers });
  const messages: any[] = [];
  ws.on('message', (data, binary) => {
    if (!binary) messages.push(JSON.parse(String(data)));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  ws.on('error', () => undefined);
  return { ws, messages, closed };
}

async function until<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The organization's shell events as {subtype, data, actor_prn} (the envelope nests the subtype and data). */
const shellEvents = async (api = t.api) =>
  ((await api('GET', '/events?type=web_console_shell&order=asc&limit=100')).body.events as any[]).map((e) => ({ subtype: e.data.type, data: e.data.data, actor_prn: e.actor_prn }));

describe('web console shell socket', () => {
  it('sends a browser to the terminal page without using the URL up', async () => {
    const device = await createTestDevice(t);
    const shell = (await t.api('POST', '/web-console-shells', { device_prn: device })).body;
    const token = shell.url.split('/').pop();
    const page = await fetch(`${t.url}/web-console/shells/${token}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(`/console/shell#${token}`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    // Still unused: the API's way uses it up now.
    expect((await fetch(`${t.url}/web-console/shells/${token}`)).status).toBe(200);
  });

  it('opens a session once, requests a shell tunnel, records who and how long, in its organization only', async () => {
    const device = await createTestDevice(t);
    const shell = (await t.api('POST', '/web-console-shells', { device_prn: device })).body;
    const before = (await shellEvents()).length;

    // Another site's page cannot spend the URL, nor a page on this host under another scheme or port.
    const own = new URL(t.url);
    const otherPort = `${own.hostname}:${Number(own.port) === 65535 ? 1 : Number(own.port) + 1}`;
    for (const origin of ['https://evil.example', `https://${own.host}`, `http://${otherPort}`, `ws://${own.host}`, 'null']) {
      expect((await openSocket(shell.url, { origin }).closed).code, origin).toBe(1006);
    }

    const first = openSocket(shell.url);
    await until(() => first.messages.find((m) => m.state === 'waiting_for_device'));
    const second = openSocket(shell.url);
    expect(await second.closed).toEqual({ code: 4410, reason: 'web_console_shell_used' });
    expect(second.messages).toEqual([{ type: 'refused', code: 'web_console_shell_used' }]);

    const opened = await until(async () => (await shellEvents()).slice(before).find((e) => e.subtype === 'opened'));
    expect(opened.data).toMatchObject({ shell_prn: shell.prn, device_prn: device, created_by_prn: expect.stringMatching(/^prn:1:/), tunnel_prn: expect.stringMatching(/:tunnel:/) });
    const tunnel = (await t.api('GET', `/tunnels/${opened.data.tunnel_prn}`)).body.tunnel;
    expect(tunnel).toMatchObject({ state: 'requested', device_prn: device, device_tunnel_port: 0, cidr_block_allowlist: [] });

    const other = await t.createOrganization();
    expect(await shellEvents(other.api)).toEqual([]);

    first.ws.close();
    await first.closed;
    const closed = await until(async () => (await shellEvents()).slice(before).find((e) => e.subtype === 'closed'));
    expect(closed.data).toMatchObject({ shell_prn: shell.prn, device_prn: device, close_reason: 'browser_closed', exit_code: null, tunnel_prn: opened.data.tunnel_prn });
    expect(closed.data.duration_seconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(closed.data.ended_at)).toBeGreaterThanOrEqual(Date.parse(closed.data.started_at));
    expect((await t.api('GET', `/tunnels/${opened.data.tunnel_prn}`)).body.tunnel).toMatchObject({ state: 'closed', close_reason: 'web_console_shell_ended' });
  });

  it("accepts a page from this server's own origin or from the public URL's, scheme, host and port alike", async () => {
    const device = await createTestDevice(t);
    const publicOrigin = new URL(t.config.publicUrl).origin;
    expect(publicOrigin).not.toBe(new URL(t.url).origin);
    for (const origin of [new URL(t.url).origin, publicOrigin]) {
      const shell = (await t.api('POST', '/web-console-shells', { device_prn: device })).body;
      const opened = openSocket(shell.url, { origin });
      await until(() => opened.messages.find((m) => m.state === 'waiting_for_device'));
      opened.ws.close();
      await opened.closed;
    }
  });

  it('ends the session when its tunnel is closed, and refuses unknown and expired URLs', async () => {
    const device = await createTestDevice(t);
    const shell = (await t.api('POST', '/web-console-shells', { device_prn: device })).body;
    const before = (await shellEvents()).length;
    const session = openSocket(shell.url);
    const opened = await until(async () => (await shellEvents()).slice(before).find((e) => e.subtype === 'opened' && e.data.shell_prn === shell.prn));
    expect((await t.api('PATCH', `/tunnels/${opened.data.tunnel_prn}`, { state: 'closed' })).status).toBe(200);
    expect(await session.closed).toEqual({ code: 4000, reason: 'tunnel_closed' });
    expect(session.messages.at(-1)).toEqual({ type: 'closed', reason: 'tunnel_closed', exit_code: null });

    // A device with remote_access_tunnels.shell: false closes the tunnel with this reason.
    const refusedBy = (await t.api('POST', '/web-console-shells', { device_prn: device })).body;
    const refusing = openSocket(refusedBy.url);
    const second = await until(async () => (await shellEvents()).find((e) => e.subtype === 'opened' && e.data.shell_prn === refusedBy.prn));
    await t.api('PATCH', `/tunnels/${second.data.tunnel_prn}`, { state: 'closed', close_reason: 'shell_disabled' });
    expect(await refusing.closed).toEqual({ code: 4000, reason: 'shell_disabled' });

    const unknown = openSocket(`${shell.url.slice(0, -4)}AAAA`);
    expect((await unknown.closed).code).toBe(4404);
    const expired = (await t.api('POST', '/web-console-shells', { device_prn: device, ttl: 0 })).body;
    expect(await openSocket(expired.url).closed).toEqual({ code: 4410, reason: 'web_console_shell_expired' });
  });
});
