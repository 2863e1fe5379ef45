/**
 * The web console shell end to end, in network namespaces this test makes (the daemon's lab,
 * packages/daemon/test/support/netns): the real server process (serving this console's build)
 * in one, the daemon's tunnel agent (real WireGuard interface, real PTY service) in the
 * "device" one, and Chromium in the machine's own namespace, reaching the admin server through
 * a loopback port joined to the lab's Unix socket. Chromium opens the one-time URL, types
 * `echo hello` and sees it; Ctrl-C interrupts a command, a resize reaches the PTY, `exit 3` ends
 * the session with its code and event; the URL opened again is refused; a second session ends
 * when its tunnel is closed, and a third when its tunnel expires. The sessions' events reach a
 * webhook: a real HTTPS receiver of the test's, reached from the server's namespace through a
 * Unix socket, each delivery checked against the webhook's secret.
 *
 * Needs root, /dev/net/tun, ip, wg and wireguard-go (CI runs as root); skipped, saying why, otherwise.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { verifyWebhook } from '@canopy/sdk/webhook-signature';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETNS_SUPPORT, startCanopyInLab, type CanopyInLab } from '../../../daemon/test/support/netns/canopy-in-lab';
import { createLab, labUnsupportedReason, waitForLine, type Lab } from '../../../daemon/test/support/netns/lab';
import { startReceiver, type Receiver } from '../../../server/test/support/webhook-receiver';
import { assertBuilt, consoleDist, launchChromium } from './harness';

const unsupported = labUnsupportedReason();
if (unsupported) console.warn(`skipping the web console shell test: ${unsupported}`);

describe.skipIf(unsupported !== null)(`web console shell through a tunnel${unsupported ? ` (skipped: ${unsupported})` : ''}`, () => {
  let lab: Lab;
  let work: string;
  let canopy: CanopyInLab;
  let agent: ChildProcess;
  let bridge: net.Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let hookBridge: net.Server;
  let webhookSecret: string;

  /** Joins two sockets both ways; either one failing ends the other. */
  const join = (a: net.Socket, b: net.Socket) => {
    a.on('error', () => b.destroy());
    b.on('error', () => a.destroy());
    a.pipe(b).pipe(a);
  };

  beforeAll(async () => {
    assertBuilt();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-shell-'));
    lab = createLab();
    // The webhook receiver's way in from the server's namespace: localhost:<its port> there, a
    // Unix socket between, its own port here.
    receiver = await startReceiver();
    const receiverPort = new URL(receiver.url).port;
    const hookSocket = path.join(work, 'hooks.sock');
    hookBridge = net.createServer((client) => join(client, net.connect({ host: '127.0.0.1', port: Number(receiverPort) })));
    await new Promise<void>((resolve) => hookBridge.listen(hookSocket, resolve));
    canopy = await startCanopyInLab(lab, work, {
      pollSeconds: 1,
      portRanges: ['22'],
      echoPorts: [],
      consoleDir: consoleDist,
      env: { CANOPY_WEBHOOK_ALLOW_PRIVATE: '1', CANOPY_WEBHOOK_CA_FILE: receiver.caFile },
    });
    const reverse = lab.spawn(lab.ns.server, process.execPath, [path.join(NETNS_SUPPORT, 'reverse-relay.mjs'), receiverPort, hookSocket]);
    await waitForLine(reverse, (line) => line === 'ready');
    const hook = await canopy.admin('POST', '/webhooks', { url: receiver.url, enabled_events: ['web_console_shell.opened', 'web_console_shell.closed'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    webhookSecret = hook.body.webhook.secret;
    agent = await canopy.startAgent();
    // Chromium's way to the admin server: 127.0.0.1 here, the lab's Unix socket relay there.
    bridge = net.createServer((client) => join(client, net.connect(canopy.socketPath)));
    await new Promise<void>((resolve) => bridge.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(bridge.address() as net.AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  }, 300_000);

  afterAll(async () => {
    if (process.env.CANOPY_NETNS_LOG && lab) fs.writeFileSync(process.env.CANOPY_NETNS_LOG, `server:\n${lab.output(canopy?.server)}\nagent:\n${lab.output(agent)}\n`);
    await browser?.close();
    bridge?.close();
    hookBridge?.close();
    await receiver?.close();
    lab?.destroy();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  /** A new one-time URL for the lab's device, on the bridge's origin. */
  async function shellUrl(): Promise<{ url: string; prn: string }> {
    const created = await canopy.admin('POST', '/web-console-shells', { device_prn: canopy.device.prn });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { url: `${base}${new URL(created.body.url).pathname}`, prn: created.body.prn };
  }

  /**
   * The terminal's lines as xterm.js renders them (its DOM renderer: one row element per line),
   * without a leading shell prompt: a line typed before the prompt came back (after Ctrl-C) is
   * echoed at once, so the prompt lands in front of the command's output ("# after-23").
   */
  const screen = async () => (await page.locator('.xterm-rows > div').allTextContents()).map((line) => line.replace(/\u00a0/g, ' ').trimEnd().replace(/^\S*[#$%>] /, ''));
  const expectLine = (pattern: RegExp, timeout = 15_000) => expect.poll(async () => (await screen()).some((line) => pattern.test(line)), { timeout }).toBe(true);
  const state = () => page.getByTestId('shell-state').textContent();

  async function typeLine(text: string) {
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
  }

  async function shellEvents(shellPrn: string) {
    const listed = await canopy.admin('GET', `/events?type=web_console_shell&resource_prn=${encodeURIComponent(shellPrn)}&order=asc`);
    return (listed.body.events as any[]).map((event) => ({ subtype: event.data.type, ...event.data.data }));
  }

  /** The session's events as the webhook received them, each checked against the webhook's secret. */
  function delivered(shellPrn: string) {
    return receiver.requests
      .filter((request) => request.body?.type === 'web_console_shell' && request.body.data?.data?.shell_prn === shellPrn)
      .map((request) => {
        const signed = verifyWebhook(webhookSecret, request.headers['canopy-published-at'] as string, request.rawBody, request.headers['canopy-signature'] as string, 60);
        return { subtype: request.body.data.type as string, signed, ...request.body.data.data };
      });
  }

  it('types echo hello and sees it; Ctrl-C, resize and exit work; the URL is refused the second time', async () => {
    const shell = await shellUrl();
    await page.goto(shell.url);
    expect(new URL(page.url()).pathname).toBe('/console/shell');
    await expect.poll(state, { timeout: 60_000 }).toBe('Connected');
    expect(new URL(page.url()).hash).toBe(''); // the spent token leaves the address bar
    await page.getByTestId('terminal').click();

    await typeLine('echo hello');
    await expectLine(/^hello$/);

    // Ctrl-C interrupts the foreground job: the next command runs long before the sleep would end.
    await typeLine('sleep 30');
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+C');
    await typeLine('echo after-$((20+3))');
    await expectLine(/^after-23$/, 10_000);

    // The window's size reaches the PTY (stty asks the kernel).
    await typeLine('stty size | sed "s/^/size-/"');
    await expectLine(/^size-\d+ \d+$/);
    const sizeOf = async () => (await screen()).filter((line) => /^size-\d+ \d+$/.test(line)).at(-1);
    const before = await sizeOf();
    await page.setViewportSize({ width: 700, height: 500 });
    await page.waitForTimeout(300);
    await typeLine('stty size | sed "s/^/size-/"');
    await expect.poll(sizeOf, { timeout: 10_000 }).not.toBe(before);
    expect(await sizeOf()).toMatch(/^size-\d+ \d+$/);

    await typeLine('exit 3');
    await expect.poll(() => page.getByTestId('shell-closed').textContent(), { timeout: 15_000 }).toMatch(/The shell exited \(exit code 3\)/);

    await expect.poll(() => shellEvents(shell.prn), { timeout: 10_000 }).toHaveLength(2);
    const events = await shellEvents(shell.prn);
    expect(events[0]).toMatchObject({ subtype: 'opened', device_prn: canopy.device.prn });
    expect(events[1]).toMatchObject({ subtype: 'closed', device_prn: canopy.device.prn, close_reason: 'exited', exit_code: 3 });
    expect(events[1].duration_seconds).toBeGreaterThan(0);
    const tunnel = (await canopy.admin('GET', `/tunnels/${events[1].tunnel_prn}`)).body.tunnel;
    expect(tunnel).toMatchObject({ state: 'closed', device_tunnel_port: 0, close_reason: 'web_console_shell_ended' });

    // The same two events, signed, at the webhook (deliveries may arrive in either order).
    await expect.poll(() => delivered(shell.prn).length, { timeout: 15_000 }).toBe(2);
    const hooks = delivered(shell.prn).sort((a, b) => a.subtype.localeCompare(b.subtype));
    expect(hooks[0]).toMatchObject({ subtype: 'closed', signed: true, close_reason: 'exited', exit_code: 3, device_prn: canopy.device.prn, duration_seconds: events[1].duration_seconds });
    expect(hooks[1]).toMatchObject({ subtype: 'opened', signed: true, device_prn: canopy.device.prn, tunnel_prn: events[0].tunnel_prn });

    await page.goto(shell.url);
    await expect.poll(() => page.getByTestId('shell-refused').textContent(), { timeout: 15_000 }).toMatch(/used already/);
  });

  it('ends the session when its tunnel is closed', async () => {
    const shell = await shellUrl();
    await page.goto(shell.url);
    await expect.poll(state, { timeout: 60_000 }).toBe('Connected');
    const [opened] = await shellEvents(shell.prn);
    expect((await canopy.admin('PATCH', `/tunnels/${opened.tunnel_prn}`, { state: 'closed' })).status).toBe(200);
    await expect.poll(() => page.getByTestId('shell-closed').textContent(), { timeout: 15_000 }).toMatch(/tunnel to the device closed/);
    await expect.poll(async () => (await shellEvents(shell.prn)).at(-1), { timeout: 10_000 }).toMatchObject({ subtype: 'closed', close_reason: 'tunnel_closed' });
  });

  it('ends the session when its tunnel expires, and says so on the page, in the event and to the webhook', async () => {
    const shell = await shellUrl();
    await page.goto(shell.url);
    await expect.poll(state, { timeout: 60_000 }).toBe('Connected');
    const [opened] = await shellEvents(shell.prn);
    // The shortest ttl the API takes: the expiry job closes the tunnel a second from now.
    expect((await canopy.admin('PATCH', `/tunnels/${opened.tunnel_prn}`, { ttl: 1 })).status).toBe(200);
    await expect.poll(() => page.getByTestId('shell-closed').textContent(), { timeout: 15_000 }).toMatch(/tunnel to the device expired/);
    await expect.poll(async () => (await shellEvents(shell.prn)).at(-1), { timeout: 10_000 }).toMatchObject({ subtype: 'closed', close_reason: 'tunnel_expired' });
    await expect.poll(() => delivered(shell.prn).find((hook) => hook.subtype === 'closed'), { timeout: 15_000 }).toMatchObject({ signed: true, close_reason: 'tunnel_expired' });
    expect((await canopy.admin('GET', `/tunnels/${opened.tunnel_prn}`)).body.tunnel.state).toBe('closed');
  });
});
