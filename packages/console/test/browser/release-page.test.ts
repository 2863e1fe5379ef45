/**
 * The operator's rollout tasks on a release's page, in real Chromium against a real server whose
 * devices report over the real device API (mutual TLS): create a phased release with a health
 * gate, watch it halt on failures, see which devices failed and why, revert it, halt and resume
 * by hand; a superseded release is not called rolling; 390 px; a read-only user; axe-core.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa } from '../../../server/test/support/certificates';
import { deviceApi } from '../../../server/test/support/device-json-client';
import { registerDeviceCertificate, registeredCa } from '../../../server/test/support/device-fleet';
import { createFleet } from '../../../server/test/support/fleet';
import type { Api } from '../../../server/test/support/server';
import { confirmDialog, expectAccessible, newPage, signInWith, useConsoleBrowser } from './harness';

const b = useConsoleBrowser();
let cohortPrn: string;
let firstPrn: string;
let bundlePrn: string;
const devices: { prn: string; identifier: string; api: Api }[] = [];

type Release = { prn: string; name: string; disabled: boolean; halted_at: string | null; required: boolean; bundle_prn: string; halt_failure_ratio: number | null; halt_min_reports: number; phase_value: number | null };
const releases = async () => (await b.server.api('GET', `/releases?limit=100&search=${encodeURIComponent(`cohort_prn:'${cohortPrn}'`)}`)).body.releases as Release[];
const byName = async (name: string) => (await releases()).find((r) => r.name === name)!;

beforeAll(async () => {
  const fleet = await createFleet(b.server.api);
  const cohort = await fleet.cohort('field');
  cohortPrn = cohort.prn;
  const ca = await makeRootCa();
  await registeredCa(b.server.api, ca);
  for (let i = 0; i < 3; i++) {
    const { prn } = await fleet.device({ cohortId: cohort.id });
    const identifier = (await b.server.api('GET', `/devices/${prn}`)).body.device.identifier as string;
    const certificate = await makeLeafCertificate(ca, identifier);
    await registerDeviceCertificate(b.server.api, prn, certificate);
    devices.push({ prn, identifier, api: deviceApi(b.server, certificate) });
  }
  const first = await b.server.api('POST', '/releases', { cohort_prn: cohortPrn, bundle_prn: (await fleet.bundle({ name: 'bundle-one' })).prn, name: 'field-1', required: false, schedule_date: null });
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  firstPrn = first.body.release.prn;
  bundlePrn = (await fleet.bundle({ name: 'bundle-two' })).prn;
});

async function report(index: number, releasePrn: string, status: string, reason?: string) {
  const res = await devices[index].api('POST', '/update/reports', { status, release_prn: releasePrn, bundle_prn: bundlePrn, ...(reason ? { reason } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const text = (page: Page, testId: string) => page.getByTestId(testId).first().textContent();

describe('a release page', () => {
  it('creates a phased release with a health gate from the form', async () => {
    const page = b.page;
    await signInWith(page, b.consoleUrl(`cohorts/${cohortPrn}`), b.server.apiKey);
    const form = page.getByRole('form', { name: 'Add a release' });
    await form.getByRole('combobox', { name: 'Bundle' }).click();
    await page.getByRole('option', { name: 'bundle-two' }).click();
    await form.getByLabel(/^Name/).fill('field-2');
    await form.getByLabel('Phase value').fill('0.5');
    // The gate is on by default; the operator sets its numbers.
    await form.getByLabel('Failure share that halts (%)').fill('50');
    await form.getByLabel('After at least (finished installs)').fill('2');
    await form.getByRole('button', { name: 'Preview (dry run)' }).click();
    await page.getByTestId('dry-run').waitFor();
    await form.getByRole('button', { name: 'Add release' }).click();
    await expect.poll(async () => (await byName('field-2'))?.halt_failure_ratio).toBe(0.5);
    expect(await byName('field-2')).toMatchObject({ halt_min_reports: 2, phase_value: 0.5, halted_at: null });
  });

  it('shows the release halted by its gate, its progress with shares and the failed devices with their reasons', async () => {
    const page = b.page;
    const release = await byName('field-2');
    await report(0, release.prn, 'installed');
    await report(1, release.prn, 'failed', 'disk full while writing slot B');
    expect((await byName('field-2')).halted_at).not.toBeNull();
    await report(2, release.prn, 'downloading');

    // From the cohort's page: one click on the release.
    await page.getByRole('table', { name: 'Rollout progress' }).getByRole('link', { name: 'field-2' }).click();
    await expect.poll(() => text(page, 'release-state')).toBe('halted');
    expect(await text(page, 'release-state-sentence')).toContain('The health gate halted release field-2');
    const rollout = (await b.server.api('GET', `/releases/${release.prn}/rollout`)).body.rollout;
    expect(rollout.cohort_devices, JSON.stringify(rollout)).toBe(3);
    expect(rollout.reported, JSON.stringify(rollout)).toMatchObject({ installed: 1, failed: 1, downloading: 1 });
    await expect.poll(() => text(page, 'rollout-headline')).toMatch(/^1 of 3 devices on it \(33 %\)/);
    expect(await page.getByTestId('bucket-failed').textContent()).toBe('Failed133 %failed 1');
    expect(await page.getByTestId('bucket-in_progress').textContent()).toBe('Updating133 %downloading 1');
    // The failed devices are shown first, with what they reported.
    await expect.poll(() => page.getByTestId('release-device-row').count()).toBe(1);
    const row = page.getByTestId('release-device-row');
    expect(await row.textContent()).toContain('disk full while writing slot B');
    expect(await row.getByRole('link').textContent()).toBe(devices[1].identifier);
    await expectAccessible(page, 'release page, halted');

    // Every report, then the device's own page from its row.
    await page.getByRole('radiogroup', { name: 'Show devices' }).getByText('All reports').click();
    await expect.poll(() => page.getByTestId('release-device-row').count()).toBe(3);
    await page.getByRole('link', { name: devices[1].identifier }).click();
    await expect.poll(() => decodeURIComponent(new URL(page.url()).pathname)).toBe(`/console/devices/${devices[1].prn}`);
    await page.goBack();
  });

  it("shows a device's update history, each attempt with its release, states, times and reason, apart from its raw events", async () => {
    const page = b.page;
    const release = await byName('field-2');
    await report(1, release.prn, 'downloading');
    await report(1, release.prn, 'rolled_back', 'boot check failed');
    await page.goto(b.consoleUrl(`devices/${devices[1].prn}`));
    await expect.poll(() => page.getByTestId('update-attempt').count()).toBe(2);
    const [latest, first] = [page.getByTestId('update-attempt').nth(0), page.getByTestId('update-attempt').nth(1)];
    expect(await latest.textContent()).toMatch(/^Release field-2rolled backReason: boot check faileddownloading .+ → rolled back /);
    expect(await first.textContent()).toMatch(/^Release field-2failedReason: disk full while writing slot Bfailed /);
    await first.getByRole('link', { name: 'field-2' }).waitFor();
    await page.getByRole('heading', { name: 'Raw events of this device' }).waitFor();
    await expectAccessible(page, 'device page with its update history');
    await page.goBack();
  });

  it('shows the event log by names with links, the data on demand, pages, and a live feed that pauses', async () => {
    const page = b.page;
    const release = await byName('field-2');
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('combobox', { name: 'Subtype' }).click();
    await page.getByRole('option', { name: 'update_reported' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('subtype')).toBe('update_reported');
    const failedRow = page.getByTestId('event-row').filter({ hasText: devices[1].identifier }).last();
    // The subject is the device by its identifier, a link to its page; the actor too.
    expect(await failedRow.getByRole('link', { name: devices[1].identifier }).count()).toBe(2);
    await failedRow.getByRole('button', { name: 'Show data' }).click();
    await expect.poll(() => page.getByTestId('event-data').textContent()).toContain('"reason": "disk full while writing slot B"');
    await expectAccessible(page, 'event log with a row open');

    // Paused: new events are counted, not drawn; resumed: they appear.
    const rows = await page.getByTestId('event-row').count();
    await page.getByRole('button', { name: 'Pause live feed' }).click();
    await report(2, release.prn, 'installing');
    await expect.poll(() => page.getByTestId('live-state').textContent(), { timeout: 10_000 }).toBe('Paused, 1 new event');
    expect(await page.getByTestId('event-row').count()).toBe(rows);
    await page.getByRole('button', { name: 'Resume live feed' }).click();
    await expect.poll(() => page.getByTestId('event-row').count()).toBe(rows + 1);

    // Older events page by page (50 a page).
    for (let i = 0; i < 50; i++) await report(2, release.prn, 'installing');
    await page.reload();
    await expect.poll(() => page.getByTestId('event-row').count()).toBe(50);
    await page.getByRole('button', { name: 'Show older events' }).click();
    await expect.poll(() => page.getByTestId('event-row').count()).toBe(rows + 51);
  });

  it('reverts the release: a required release of the bundle before it, on its own page', async () => {
    const page = b.page;
    const release = await byName('field-2');
    await page.goto(b.consoleUrl(`releases/${release.prn}`));
    await page.getByRole('button', { name: 'Revert field-2' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Name of the new release/).fill('field-2-back');
    await dialog.getByRole('button', { name: 'Revert' }).click();
    await expect.poll(() => text(page, 'release-state')).toBe('rolling');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Release field-2-back');
    const back = await byName('field-2-back');
    const first = (await releases()).find((r) => r.prn === firstPrn)!;
    expect(back).toMatchObject({ required: true, bundle_prn: first.bundle_prn });
    expect((await byName('field-2')).disabled).toBe(true);
    await expectAccessible(page, 'release page, the revert');
  });

  it('halts and resumes a release by hand', async () => {
    const page = b.page;
    await page.getByRole('button', { name: 'Halt field-2-back' }).click();
    await confirmDialog(page);
    await expect.poll(async () => (await byName('field-2-back')).disabled).toBe(true);
    await expect.poll(() => text(page, 'release-state')).toBe('halted by hand');
    await page.getByRole('button', { name: 'Resume field-2-back' }).click();
    await expect.poll(async () => (await byName('field-2-back')).disabled).toBe(false);
    await expect.poll(() => text(page, 'release-state')).toBe('rolling');
  });

  it('calls a release with a newer one after it superseded, not rolling, at 390 px too', async () => {
    const page = b.page;
    await page.goto(b.consoleUrl(`releases/${firstPrn}`));
    await expect.poll(() => text(page, 'release-state')).toBe('superseded');
    await page.getByTestId('rollout-headline').waitFor();
    await expectAccessible(page, 'release page, superseded');
    await page.setViewportSize({ width: 390, height: 800 });
    await page.reload();
    await page.getByTestId('rollout-headline').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'release page at 390 px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('filters the fleet by count chips, update state, release and plain words, tags shown as stored', async () => {
    const page = b.page;
    expect((await b.server.api('PATCH', `/devices/${devices[1].prn}`, { tags: ['east'] })).status).toBe(200);
    await page.goto(b.consoleUrl('fleet'));
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(3);
    const tag = page.getByTestId('device-row').filter({ hasText: devices[1].identifier }).getByText('east', { exact: true });
    expect(await tag.evaluate((el) => getComputedStyle(el).textTransform)).toBe('none');
    await expectAccessible(page, 'fleet with count chips');

    // Every device reported, so all are online; a chip is one click.
    await page.getByRole('button', { name: /^Offline \d+$/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('online:false');
    await page.getByText('No device matches this filter').waitFor();
    await page.getByRole('button', { name: /^Online \d+$/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('online:true');
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(3);
    await page.getByRole('button', { name: /^Never connected \d+$/ }).click();
    await page.getByText('No device matches this filter').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    // Plain words search identifiers instead of failing as a malformed clause.
    const raw = page.getByLabel("Search (the admin API's search language)");
    await raw.fill(devices[2].identifier);
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(1);
    expect(await raw.inputValue()).toBe(`identifier~'${devices[2].identifier}'`);

    // The devices whose latest report is a roll-back, then those on a release (picked by name).
    await raw.fill("update_status:'rolled_back'");
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(1);
    expect(await page.getByTestId('device-row').textContent()).toContain(devices[1].identifier);
    await b.server.server.platform.db.execute(`update devices set reported_release_prn = '${firstPrn}' where id = '${devices[0].prn.split(':').pop()}'`);
    await page.getByRole('combobox', { name: 'Field of condition 1' }).click();
    await page.getByRole('option', { name: 'Release' }).click();
    await page.getByRole('combobox', { name: 'Value of condition 1' }).click();
    await page.getByRole('option', { name: /^field-1 / }).click();
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(1);
    expect(await page.getByTestId('device-row').textContent()).toContain(devices[0].identifier);
    await expectAccessible(page, 'fleet filtered by release');
  });

  it('shows a read-only user the progress and reports but no actions', async () => {
    const reader = await newPage(b.browser);
    const release = await byName('field-2');
    await signInWith(reader, b.consoleUrl(`releases/${release.prn}`), await b.server.keyWithRole('read'));
    await reader.getByTestId('release-device-row').first().waitFor();
    expect(await reader.getByRole('button', { name: /Halt|Resume|Revert|Save health gate/ }).count()).toBe(0);
    await reader.close();
  });
});
