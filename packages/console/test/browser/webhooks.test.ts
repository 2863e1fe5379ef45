/**
 * The webhooks screens in real Chromium against a real server that delivers to a real local
 * HTTPS receiver: create (secret shown once), test fire, the deliveries log, redeliver,
 * disable/enable, roll the secret, delete; the API's error; 390 px; a non-admin; axe-core.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENTS } from '@canopy/sdk/event-catalogue';
import { startTestServer, type TestServer } from '../../../server/test/support/server';
import { startReceiver, type Receiver } from '../../../server/test/support/webhook-receiver';
import { assertBuilt, confirmDialog, consoleDist, expectAccessible, launchChromium, newPage, signInWith } from './harness';

let server: TestServer;
let receiver: Receiver;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  assertBuilt();
  receiver = await startReceiver();
  server = await startTestServer({ consoleDir: consoleDist, webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile], webhookTimeoutMs: 2_000, webhookPollMs: 50 });
  browser = await launchChromium();
  page = await newPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await receiver?.close();
});

const consoleUrl = (path = '') => `${server.url}/console/${path}`;
const webhooksNow = async () => (await server.api('GET', '/webhooks?limit=10')).body.webhooks as { prn: string; url: string; state: string; enabled_events: string[] }[];

describe('the webhooks screens', () => {
  it('lists no webhooks at first and says what to do', async () => {
    await signInWith(page, consoleUrl(), server.apiKey);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No webhooks yet').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/webhooks');
    await expectAccessible(page, 'webhooks (empty)');
  });

  it('shows the API error code and field for a url the server refuses', async () => {
    await page.getByLabel(/^Webhook URL/).fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/4\d\d \w+.*url/);
    expect(await webhooksNow()).toEqual([]);
  });

  it('offers every event a webhook can subscribe to (the event catalogue\'s)', async () => {
    const offered = await page.getByRole('group', { name: 'Events delivered' }).getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(offered).toEqual(SUBSCRIBABLE_EVENTS);
  });

  it('creates a webhook after the verification fire and shows its secret once', async () => {
    const url = `${receiver.url}?console=1`;
    await page.getByLabel(/^Webhook URL/).fill(url);
    await page.getByLabel(/^Description/).fill('ops pager');
    // What the rollout guide recommends subscribing to, beside the default.
    await page.getByRole('checkbox', { name: 'release.halted' }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByTestId('secret-once').waitFor();
    const secret = (await page.getByTestId('secret-once').textContent())!.trim();
    expect(secret).toMatch(/^[0-9A-F]{32}$/);
    await expect.poll(() => page.getByTestId('webhook-row').count()).toBe(1);
    expect(await webhooksNow()).toMatchObject([{ url, state: 'enabled', enabled_events: ['device.release_changed', 'release.halted'] }]);
    // The receiver got the signed verification fire.
    expect(receiver.requests.some((r) => r.body?.data?.type === 'test_fire')).toBe(true);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByTestId('secret-once').count()).toBe(0);
  });

  it('fires a test event, lists the delivery and redelivers it', async () => {
    await page.getByTestId('webhook-row').getByRole('link').click();
    await page.getByRole('button', { name: 'Send test event' }).waitFor();
    const [hook] = await webhooksNow();
    expect(decodeURIComponent(new URL(page.url()).pathname)).toBe(`/console/webhooks/${hook.prn}`);
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event sent').waitFor();
    await expect.poll(() => receiver.requests.length, { timeout: 15_000 }).toBeGreaterThan(before);
    await expect.poll(() => page.getByTestId('delivery-row').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('delivery-answer').first().textContent()).toBe('200');
    const rows = await page.getByTestId('delivery-row').count();
    const received = receiver.requests.length;
    await page.getByTestId('delivery-row').first().getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('1 delivery queued again').waitFor();
    await expect.poll(() => receiver.requests.length, { timeout: 15_000 }).toBeGreaterThan(received);
    await expect.poll(() => page.getByTestId('delivery-row').count(), { timeout: 15_000 }).toBeGreaterThan(rows);
    await expectAccessible(page, 'webhook');
  });

  it('disables and enables the webhook, and rolls its secret behind a confirmation', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.getByTestId('webhook-state').textContent()).toBe('disabled');
    expect((await webhooksNow())[0].state).toBe('disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.getByTestId('webhook-state').textContent()).toBe('enabled');
    expect((await webhooksNow())[0].state).toBe('enabled');

    await page.getByRole('button', { name: 'Roll secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('secret-once').count()).toBe(0);
    await page.getByRole('button', { name: 'Roll secret' }).click();
    await confirmDialog(page);
    await page.getByTestId('secret-once').waitFor();
    expect((await page.getByTestId('secret-once').textContent())!.trim()).toMatch(/^[0-9A-F]{32}$/);
    await expectAccessible(page, 'webhook (secret rolled)');
  });

  it('edits the webhook: its description and events, every subscribable one offered', async () => {
    const form = page.getByRole('form', { name: 'Edit webhook' });
    const offered = await form.getByRole('group', { name: 'Events delivered' }).getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(offered).toEqual(SUBSCRIBABLE_EVENTS);
    expect(await form.getByRole('checkbox', { name: 'release.halted' }).isChecked()).toBe(true);
    await form.getByLabel(/^Description/).fill('ops pager, shells too');
    await form.getByRole('checkbox', { name: 'web_console_shell.opened' }).check();
    await form.getByRole('checkbox', { name: 'device.release_changed' }).uncheck();
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(async () => (await webhooksNow())[0].enabled_events.sort()).toEqual(['release.halted', 'web_console_shell.opened']);
    expect((await server.api('GET', `/webhooks/${(await webhooksNow())[0].prn}`)).body.webhook.description).toBe('ops pager, shells too');
    await expectAccessible(page, 'webhook edited');
  });

  it('is usable at 390 px wide', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.reload();
    await page.getByTestId('delivery-row').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'webhook at 390 px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('deletes the webhook after confirmation', async () => {
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await confirmDialog(page);
    await page.getByText('No webhooks yet').waitFor();
    expect(await webhooksNow()).toEqual([]);
  });

  it('shows a non-admin no webhooks', async () => {
    const reader = await newPage(browser);
    await signInWith(reader, consoleUrl(), await server.keyWithRole('write'));
    expect(await reader.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await reader.goto(consoleUrl('webhooks'));
    await reader.getByText('Only admins manage webhooks').waitFor();
    expect(await reader.getByRole('button', { name: 'Create webhook' }).count()).toBe(0);
    await expectAccessible(reader, 'webhooks (not admin)');
    await reader.close();
  });
});
