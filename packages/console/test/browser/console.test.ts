/**
 * The console as an operator uses it, in real Chromium against a real server with real data:
 * sign-in, products, cohorts and devices, the fleet filter, the release chain, a live change
 * in the fleet view, a read-only user, 390 px wide, and axe-core on every screen.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createFleet } from '../../../server/test/support/fleet';
import { confirmDialog, expectAccessible, newPage, signInWith, useConsoleBrowser } from './harness';

const t = useConsoleBrowser();

const consoleUrl = t.consoleUrl;

const signInWithKey = (target: Page, key: string) => signInWith(target, consoleUrl(), key);

async function pick(target: Page, label: string, option: string) {
  await target.getByLabel(new RegExp(`^${label}`)).first().click();
  await target.getByRole('option', { name: option }).click();
}

describe('the web console', () => {
  it('signs in with username and password, and refuses a wrong password with the API error', async () => {
    await t.page.goto(consoleUrl());
    await expectAccessible(t.page, 'sign-in');
    await t.page.getByLabel('Username or email').fill(t.server.server.bootstrap!.username);
    await t.page.getByLabel(/^Password/).fill('not the password');
    await t.page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => t.page.getByRole('alert').textContent()).toContain('401');
    await t.page.getByLabel(/^Password/).fill(t.server.server.bootstrap!.password);
    await t.page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => t.page.getByTestId('signed-in-as').textContent()).toContain('(admin)');
    expect(new URL(t.page.url()).pathname).toBe('/console/fleet');
    await t.page.getByText('No devices yet').waitFor();
    await expectAccessible(t.page, 'fleet (empty)');
  });

  it('creates a product, a cohort and devices from the screens', async () => {
    await t.page.getByRole('link', { name: 'Products and cohorts' }).click();
    await t.page.getByLabel('New product name').fill('gateway');
    await t.page.getByRole('button', { name: 'Create product' }).click();
    await t.page.getByRole('link', { name: 'gateway' }).click();
    await t.page.getByLabel('New cohort name').fill('beta');
    await t.page.getByRole('button', { name: 'Create cohort' }).click();
    await t.page.getByRole('link', { name: 'beta' }).waitFor();
    for (const identifier of ['gw-alpha-1', 'gw-alpha-2', 'gw-omega-1']) {
      await t.page.getByLabel('New device identifier').fill(identifier);
      await t.page.getByRole('button', { name: 'Add device' }).click();
      await expect.poll(() => t.page.getByLabel('New device identifier').inputValue()).toBe('');
    }
    await expectAccessible(t.page, 'product');
    const listed = (await t.server.api('GET', '/devices?limit=10')).body.devices.map((d: { identifier: string }) => d.identifier);
    expect(listed.sort()).toEqual(['gw-alpha-1', 'gw-alpha-2', 'gw-omega-1']);
  });

  it('filters the fleet with the search language, keeping the filter in the URL', async () => {
    await t.page.getByRole('link', { name: 'Fleet', exact: true }).click();
    await expect.poll(() => t.page.getByTestId('device-row').count()).toBe(3);
    await t.page.getByLabel("Search (the admin API's search language)").fill("identifier~'alpha'");
    await t.page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => t.page.getByTestId('device-row').count()).toBe(2);
    // Counts by state of everything the filter selects, as GET /devices/counts answers them.
    await expect.poll(() => t.page.getByTestId('fleet-counts').textContent()).toBe('Devices 2Online 0Offline 2Quarantined 0Never connected 2Archived 0');
    expect(new URL(t.page.url()).searchParams.get('q')).toBe("identifier~'alpha'");
    // The builder shows the same filter as a clause.
    expect(await t.page.getByLabel('Value of condition 1').inputValue()).toBe('alpha');
    // The URL alone gives the same view (a shared link; the session lives in this tab).
    await t.page.reload();
    await expect.poll(() => t.page.getByTestId('device-row').count()).toBe(2);
    // A filter the server refuses shows its error code and field.
    await t.page.getByLabel("Search (the admin API's search language)").fill("colour:'green'");
    await t.page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => t.page.getByRole('alert').textContent()).toMatch(/400/);
    await t.page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => t.page.getByTestId('device-row').count()).toBe(3);
    await expectAccessible(t.page, 'fleet');
  });

  it('quarantines selected devices with a bulk action', async () => {
    await t.page.getByLabel('Select gw-omega-1').check();
    await t.page.getByRole('button', { name: 'Quarantine', exact: true }).click();
    await expect.poll(async () => (await t.server.api('GET', `/devices?search=${encodeURIComponent("identifier:'gw-omega-1'")}`)).body.devices[0].quarantined).toBe(true);
    await t.page.getByText('Quarantined', { exact: true }).first().waitFor();
    await expect.poll(() => t.page.getByTestId('fleet-counts').textContent()).toContain('Quarantined 1');
  });

  it('builds a release on a cohort, draws the chain, and edits its phase in place', async () => {
    const fleet = await createFleet(t.server.api);
    const cohort = await fleet.cohort('stable');
    await fleet.device({ cohortId: cohort.id });
    const bundle = await fleet.bundle({ name: 'bundle-one' });
    await t.page.goto(consoleUrl(`cohorts/${cohort.prn}`));
    await t.page.getByText('No releases in this cohort').waitFor();
    await pick(t.page, 'Bundle', 'bundle-one');
    await t.page.getByLabel(/^Name/).fill('first');
    await t.page.getByLabel(/^Version/).fill('1.0.0');
    await t.page.getByLabel('Phase value').fill('0.5');
    // The form adds a release only once its values were previewed (dry run).
    await t.page.getByRole('button', { name: 'Preview (dry run)' }).click();
    await t.page.getByTestId('dry-run').waitFor();
    await t.page.getByRole('button', { name: 'Add release' }).click();
    await expect.poll(() => t.page.getByTestId('chain-link').count()).toBe(1);
    await expect.poll(() => t.page.getByTestId('chain-phase').first().textContent()).toBe('Phase: 50% of the cohort');
    const link = t.page.getByTestId('chain-link').first();
    await link.getByLabel('Phase value').fill('0.75');
    await link.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => t.page.getByTestId('chain-phase').first().textContent()).toBe('Phase: 75% of the cohort');
    const releases = (await t.server.api('GET', `/releases?search=${encodeURIComponent(`cohort_prn:'${cohort.prn}'`)}`)).body.releases;
    expect(releases).toMatchObject([{ name: 'first', version: '1.0.0', phase_value: 0.75, bundle_prn: bundle.prn }]);
    await expectAccessible(t.page, 'cohort');
  });

  it('shows an admin-side update check change a device live in the fleet view', async () => {
    const fleet = await createFleet(t.server.api);
    const cohort = await fleet.cohort('live');
    const device = await fleet.device({ cohortId: cohort.id });
    const bundle = await fleet.bundle({ name: 'live-bundle' });
    expect((await t.server.api('POST', '/releases', { cohort_prn: cohort.prn, bundle_prn: bundle.prn, name: 'live', version: '2.0.0', required: false, schedule_date: null })).status).toBe(201);
    await t.page.goto(consoleUrl(`fleet?q=${encodeURIComponent(`cohort_prn:'${cohort.prn}'`)}`));
    await expect.poll(() => t.page.getByTestId('device-release').first().textContent()).toBe('none reported');
    await t.page.getByText('Live', { exact: true }).waitFor();
    // Another client (the API here) stores what the device reports: the row changes without a reload.
    const check = await t.server.api('POST', `/devices/${device.prn}/update`, { release_version: '1.5.0', write: true });
    expect(check.status).toBe(200);
    expect(check.body.status).toBe('update');
    await expect.poll(() => t.page.getByTestId('device-release').first().textContent(), { timeout: 15_000 }).toBe('1.5.0');
  });

  it('shows the device page with its explanation, runs a check from it and lists its events', async () => {
    const row = t.page.getByTestId('device-row').first();
    await row.getByRole('link').click();
    await t.page.getByTestId('explain-status').waitFor();
    expect(await t.page.getByTestId('explain-status').textContent()).toContain('update');
    // Each step's reason in words, its code only in the cell's title.
    const reasons = await t.page.getByRole('table', { name: 'Resolution steps' }).locator('tbody tr td:last-child').allTextContents();
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.every((reason) => /^[A-Z].*\.$/.test(reason) && !reason.includes('_')), reasons.join(' | ')).toBe(true);
    await t.page.getByRole('button', { name: 'Check now' }).click();
    await expect.poll(() => t.page.getByTestId('check-answer').textContent()).toContain('update');
    await expect.poll(() => t.page.getByTestId('event-table').locator('tbody tr').count()).toBeGreaterThan(0);
    await t.page.getByLabel('Description').fill('on the roof');
    await t.page.getByRole('button', { name: 'Save device' }).click();
    await t.page.getByText('Device saved').waitFor();
    await expectAccessible(t.page, 'device');
  });

  it("opens and closes a device's tunnel, and opens the web console shell url the API answers", async () => {
    const devicePrn = decodeURIComponent(new URL(t.page.url()).pathname.split('/').at(-1)!);
    await t.page.getByText('No tunnels').waitFor();
    const form = t.page.getByRole('form', { name: 'Open a tunnel' });
    await form.getByLabel(/^Device port/).fill('8022');
    await form.getByLabel(/^Allowed from/).fill('10.0.0.0/8');
    await form.getByLabel(/^Allowed from/).press('Enter');
    await form.getByLabel(/^Time to live/).fill('600');
    await form.getByRole('button', { name: 'Open tunnel' }).click();
    await t.page.getByTestId('tunnel-row').waitFor();
    const [tunnel] = (await t.server.api('GET', `/tunnels?search=${encodeURIComponent(`device_prn:'${devicePrn}'`)}`)).body.tunnels;
    expect(tunnel).toMatchObject({ state: 'requested', device_tunnel_port: 8022, cidr_block_allowlist: ['10.0.0.0/8'] });
    expect(await t.page.getByTestId('tunnel-row').textContent()).toContain('requested');
    await expectAccessible(t.page, 'device with a tunnel');
    await t.page.getByTestId('tunnel-row').getByRole('button', { name: 'Close' }).click();
    await confirmDialog(t.page);
    await expect.poll(async () => (await t.server.api('GET', `/tunnels/${tunnel.prn}`)).body.tunnel.state).toBe('closed');
    await expect.poll(() => t.page.getByTestId('tunnel-row').textContent()).toContain('closed');

    // The shell page is the server's: the console opens the one-time url POST /web-console-shells
    // answers. The test server's public url has no real port, so the window the console opens is recorded here, not loaded.
    await t.page.evaluate(() => {
      const recorded: unknown[] = [];
      (window as unknown as { openedUrls: unknown[] }).openedUrls = recorded;
      window.open = (url?: string | URL) => { recorded.push(String(url)); return null; };
    });
    await t.page.getByRole('button', { name: 'Open a web console shell' }).click();
    await t.page.getByTestId('shell-url').waitFor();
    const href = await t.page.getByTestId('shell-url').getByRole('link').getAttribute('href');
    expect(new URL(href!).pathname).toMatch(/^\/web-console\/shells\/[^/]+$/);
    expect(await t.page.evaluate(() => (window as unknown as { openedUrls: unknown[] }).openedUrls)).toEqual([href]);
  });

  it('shows the event log live and filterable', async () => {
    await t.page.getByRole('link', { name: 'Events' }).click();
    await t.page.getByTestId('event-table').waitFor();
    await expectAccessible(t.page, 'events');
    const before = await t.page.getByTestId('event-table').locator('tbody tr').count();
    const product = (await t.server.api('POST', '/products', { name: 'late' })).body.product;
    const made = (await t.server.api('POST', '/devices', { identifier: 'late-1', product_prn: product.prn })).body.device;
    await t.server.api('PATCH', `/devices/${made.prn}`, { description: 'arrives live' });
    await expect.poll(() => t.page.getByTestId('event-table').locator('tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(before);
    // A type no test of this file records (the device page test records tunnel events).
    await t.page.goto(consoleUrl(`events?type=webhook`));
    await expect.poll(() => t.page.getByText('No events yet').count()).toBe(1);
  });

  it('is usable at 390 px wide', async () => {
    await t.page.setViewportSize({ width: 390, height: 800 });
    await t.page.goto(consoleUrl('fleet'));
    await t.page.getByTestId('device-row').first().waitFor();
    expect(await t.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await t.page.getByRole('button', { name: 'Toggle navigation' }).click();
    await t.page.getByRole('link', { name: 'Events' }).click();
    await t.page.getByTestId('event-table').waitFor();
    await expectAccessible(t.page, 'events at 390 px');
    await t.page.setViewportSize({ width: 1280, height: 800 });
  });

  it('signs out and forgets the key', async () => {
    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await t.page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('shows a read-only user no write action', async () => {
    const readKey = await t.server.keyWithRole('read');
    const reader = await newPage(t.browser);
    await signInWithKey(reader, readKey);
    await expect.poll(() => reader.getByTestId('device-row').count()).toBeGreaterThan(0);
    expect(await reader.getByRole('checkbox').count()).toBe(0);
    await reader.getByRole('link', { name: 'Products and cohorts' }).click();
    await reader.getByRole('link', { name: 'gateway' }).waitFor();
    expect(await reader.getByRole('button', { name: 'Create product' }).count()).toBe(0);
    await reader.getByRole('link', { name: 'gateway' }).click();
    await reader.getByRole('link', { name: 'beta' }).click();
    await reader.getByText('No releases in this cohort').waitFor();
    expect(await reader.getByRole('button', { name: 'Add release' }).count()).toBe(0);
    await reader.goto(consoleUrl('fleet'));
    await reader.getByTestId('device-row').first().getByRole('link').click();
    await reader.getByTestId('explain-status').waitFor();
    expect(await reader.getByRole('button', { name: /Save device|Check now|Open a web console shell|Open tunnel/ }).count()).toBe(0);
    await expectAccessible(reader, 'device (read-only)');
    await reader.close();
  });
});
