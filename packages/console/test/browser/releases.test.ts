/**
 * A cohort's release form with the dry-run preview (`POST /releases/dry_run`) and the rollout
 * progress of its releases (`GET /releases/{prn}/rollout`), then the bundles, releases (across
 * cohorts, the guided create, a halted release resumed) and bundle overrides screens, in real
 * Chromium against a real server: the numbers on screen are the API's; 390 px; a read-only user;
 * axe-core.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifactVersion } from '../../../server/test/support/binaries';
import { deviceEnrollment } from '../../../server/test/support/device-json-client';
import { createFleet, type Fleet } from '../../../server/test/support/fleet';
import { startTestServer, type TestServer } from '../../../server/test/support/server';
import { assertBuilt, confirmDialog, consoleDist, expectAccessible, launchChromium, newPage, signInWith } from './harness';

let server: TestServer;
let browser: Browser;
let page: Page;
let cohortPrn: string;
let bundlePrn: string;
let fleet: Fleet;
let deviceIds: { prn: string }[];

beforeAll(async () => {
  assertBuilt();
  server = await startTestServer({ consoleDir: consoleDist });
  browser = await launchChromium();
  page = await newPage(browser);
  fleet = await createFleet(server.api);
  const cohort = await fleet.cohort('canary');
  deviceIds = [];
  for (let i = 0; i < 4; i++) deviceIds.push(await fleet.device({ cohortId: cohort.id }));
  cohortPrn = cohort.prn;
  bundlePrn = (await fleet.bundle({ name: 'bundle-canary' })).prn;
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const consoleUrl = (path = '') => `${server.url}/console/${path}`;

async function fillRelease(target: Page) {
  await target.getByLabel(/^Bundle/).first().click();
  await target.getByRole('option', { name: 'bundle-canary' }).click();
  await target.getByLabel(/^Name/).fill('canary-1');
  await target.getByLabel(/^Version/).fill('3.0.0');
  await target.getByRole('form', { name: 'Add a release' }).getByLabel('Phase value').fill('0.5');
}

describe('release dry run and rollout progress', () => {
  it("previews a release with the API's dry-run counts before adding it", async () => {
    await signInWith(page, consoleUrl(`cohorts/${cohortPrn}`), server.apiKey);
    await page.getByText('No releases in this cohort').waitFor();
    await fillRelease(page);
    await page.getByRole('button', { name: 'Preview (dry run)' }).click();
    const expected = (await server.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn, bundle_prn: bundlePrn, name: 'canary-1', version: '3.0.0', required: false, phase_value: 0.5, schedule_date: null })).body.dry_run;
    expect(expected).toMatchObject({ valid: true, cohort_devices: 4 });
    await expect.poll(() => page.getByTestId('dry-run').textContent()).toBe(`Would reach ${expected.would_claim} of ${expected.eligible} eligible devices (4 in the cohort).`);
    // Nothing was written.
    expect((await server.api('GET', `/releases?search=${encodeURIComponent(`cohort_prn:'${cohortPrn}'`)}`)).body.releases).toEqual([]);
    await expectAccessible(page, 'cohort with dry run');
  });

  it('adds the release and shows its rollout progress as the API counts it', async () => {
    await page.getByRole('button', { name: 'Add release' }).click();
    await expect.poll(() => page.getByTestId('rollout-row').count()).toBe(1);
    const [release] = (await server.api('GET', `/releases?search=${encodeURIComponent(`cohort_prn:'${cohortPrn}'`)}`)).body.releases;
    const rollout = (await server.api('GET', `/releases/${release.prn}/rollout`)).body.rollout;
    await expect.poll(() => page.getByTestId('rollout-counts').textContent()).toBe(`${rollout.on_release} / ${rollout.eligible} / 4`);
    await expectAccessible(page, 'cohort with rollout');
  });

  it('is usable at 390 px wide', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.reload();
    await page.getByTestId('rollout-row').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'cohort at 390 px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows a read-only user the progress but no form', async () => {
    const reader = await newPage(browser);
    await signInWith(reader, consoleUrl(`cohorts/${cohortPrn}`), await server.keyWithRole('read'));
    await reader.getByTestId('rollout-row').waitFor();
    expect(await reader.getByRole('button', { name: /Preview|Add release/ }).count()).toBe(0);
    await reader.close();
  });
});

const releasesOf = async (cohort: string) => (await server.api('GET', `/releases?search=${encodeURIComponent(`cohort_prn:'${cohort}'`)}`)).body.releases as { prn: string; name: string; next_release_prn: string | null; halted_at: string | null; disabled: boolean }[];
const nameOf = async (path: string, key: string) => (await server.api('GET', path)).body[key].name as string;

describe('bundles, releases across cohorts and bundle overrides', () => {
  beforeAll(async () => {
    // Signed in already when the whole file runs; not when this block runs alone.
    if ((await page.getByTestId('signed-in-as').count()) === 0) await signInWith(page, consoleUrl('bundles'), server.apiKey);
  });

  it('makes a bundle from artifact versions', async () => {
    const version = await createArtifactVersion(server.api, '2.0.0');
    const artifactName = await nameOf(`/artifacts/${version.artifactPrn}`, 'artifact');
    await page.goto(consoleUrl('bundles'));
    await page.getByTestId('bundle-row').first().waitFor();
    await page.getByLabel(/^Bundle name/).fill('bundle-ui');
    await page.getByRole('form', { name: 'New bundle' }).getByLabel(/^Artifact versions/).first().click();
    await page.getByRole('option', { name: `${artifactName} 2.0.0` }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create bundle' }).click();
    await page.getByRole('row').filter({ hasText: 'bundle-ui' }).waitFor();
    const made = (await server.api('GET', '/bundles?limit=100')).body.bundles.find((b: { name: string }) => b.name === 'bundle-ui');
    expect(made.artifact_version_prns).toEqual([version.prn]);
    await expectAccessible(page, 'bundles');
  });

  it('lists releases of every cohort, filtered by a cohort in the URL', async () => {
    const stable = await fleet.cohort('stable');
    expect((await server.api('POST', '/releases', { cohort_prn: stable.prn, bundle_prn: bundlePrn, name: 'stable-1', required: true, schedule_date: null })).status).toBe(201);
    await page.goto(consoleUrl('releases'));
    await expect.poll(() => page.getByTestId('release-row').count()).toBe(2);
    const canaryName = await nameOf(`/cohorts/${cohortPrn}`, 'cohort');
    await page.getByRole('combobox', { name: 'Cohort' }).first().click();
    await page.getByRole('option', { name: canaryName }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('cohort')).toBe(cohortPrn);
    await expect.poll(() => page.getByTestId('release-row').count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByTestId('release-row').count()).toBe(1);
    expect(await page.getByTestId('release-row').textContent()).toContain('canary-1');
    await expectAccessible(page, 'releases filtered');
  });

  it('guides a new release: position in the chain, phasing, the dry run before adding', async () => {
    await page.goto(consoleUrl('releases'));
    await page.getByTestId('release-row').first().waitFor();
    const form = page.getByRole('form', { name: 'Add a release' });
    await form.getByRole('combobox', { name: 'Bundle' }).click();
    await page.getByRole('option', { name: 'bundle-canary' }).click();
    await form.getByRole('combobox', { name: 'Cohort' }).click();
    await page.getByRole('option', { name: await nameOf(`/cohorts/${cohortPrn}`, 'cohort') }).click();
    await form.getByLabel(/^Name/).fill('canary-0');
    await form.getByRole('combobox', { name: 'Position' }).click();
    await page.getByRole('option', { name: 'Before canary-1' }).click();
    expect(await form.getByRole('button', { name: 'Add release' }).isDisabled()).toBe(true);
    await form.getByRole('button', { name: 'Preview (dry run)' }).click();
    const [canary1] = await releasesOf(cohortPrn);
    const expected = (await server.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn, bundle_prn: bundlePrn, name: 'canary-0', version: null, required: false, phase_value: 1, schedule_date: null, next_release_prn: canary1.prn })).body.dry_run;
    expect(expected.valid).toBe(true);
    await expect.poll(() => page.getByTestId('dry-run').textContent()).toBe(`Would reach ${expected.would_claim} of ${expected.eligible} eligible devices (4 in the cohort).`);
    await form.getByRole('button', { name: 'Add release' }).click();
    await expect.poll(async () => (await releasesOf(cohortPrn)).find((r) => r.name === 'canary-0')?.next_release_prn).toBe(canary1.prn);
    await expectAccessible(page, 'releases with the guided form');
  });

  it('shows a release halted by the health gate on its cohort, and resumes it', async () => {
    const device = await deviceEnrollment(server).device(server);
    const productPrn = (await server.api('GET', `/devices/${device.prn}`)).body.device.product_prn;
    const gated = (await server.api('POST', '/cohorts', { name: 'gated', product_prn: productPrn })).body.cohort.prn;
    expect((await server.api('PATCH', `/devices/${device.prn}`, { cohort_prn: gated })).status).toBe(200);
    const bundle = await fleet.bundle({ name: 'bundle-gated' });
    const release = (await server.api('POST', '/releases', { cohort_prn: gated, bundle_prn: bundle.prn, name: 'gated-1', required: false, schedule_date: null, halt_failure_ratio: 1, halt_min_reports: 1 })).body.release;
    const report = await device.api('POST', '/update/reports', { status: 'failed', release_prn: release.prn, bundle_prn: bundle.prn, reason: 'boom' });
    expect(report.status, JSON.stringify(report.body)).toBeLessThan(300);
    expect((await releasesOf(gated))[0].halted_at).not.toBeNull();

    await page.goto(consoleUrl(`cohorts/${gated}`));
    await page.getByTestId('halted-banner').waitFor();
    expect(await page.getByTestId('halted-banner').textContent()).toContain('Release gated-1 is halted');
    await expectAccessible(page, 'cohort with a halted release');
    await page.getByRole('button', { name: 'Resume gated-1' }).click();
    await expect.poll(() => page.getByTestId('halted-banner').count()).toBe(0);
    expect((await releasesOf(gated))[0]).toMatchObject({ halted_at: null, disabled: false });
  });

  it('creates a bundle override and adds and removes its devices', async () => {
    const identifier = (await server.api('GET', `/devices/${deviceIds[0].prn}`)).body.device.identifier;
    await page.goto(consoleUrl('bundle-overrides'));
    await page.getByText('No bundle overrides').waitFor();
    await expectAccessible(page, 'bundle overrides, empty');
    await page.getByLabel(/^Override name/).fill('field-trial');
    await page.getByRole('form', { name: 'New bundle override' }).getByRole('combobox', { name: 'Bundle' }).click();
    await page.getByRole('option', { name: 'bundle-canary' }).click();
    await page.getByRole('button', { name: 'Create override' }).click();
    await page.getByRole('link', { name: 'field-trial' }).click();
    await page.getByText('No devices in this override').waitFor();

    await page.getByLabel(/^Device identifier/).fill('no-such-device');
    await page.getByRole('button', { name: 'Add device' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Could not add device' }).textContent()).toContain('no device has the identifier no-such-device');
    await page.getByLabel(/^Device identifier/).fill(identifier);
    await page.getByRole('button', { name: 'Add device' }).click();
    await page.getByTestId('override-device-row').waitFor();
    expect(await page.getByTestId('override-device-row').textContent()).toContain(identifier);
    const [override] = (await server.api('GET', '/bundle_overrides')).body.bundle_overrides;
    expect((await server.api('GET', `/bundle_overrides/${override.prn}/devices`)).body.devices.map((d: { device_prn: string }) => d.device_prn)).toEqual([deviceIds[0].prn]);
    await expectAccessible(page, 'bundle override with a device');

    await page.getByTestId('override-device-row').getByRole('button', { name: 'Delete' }).click();
    await confirmDialog(page);
    await page.getByText('No devices in this override').waitFor();
    expect((await server.api('GET', `/bundle_overrides/${override.prn}/devices`)).body.devices).toEqual([]);
  });

  it('shows a read-only user the lists but no create form', async () => {
    const reader = await newPage(browser);
    await signInWith(reader, consoleUrl('releases'), await server.keyWithRole('read'));
    await reader.getByTestId('release-row').first().waitFor();
    for (const screen of ['releases', 'bundles', 'bundle-overrides']) {
      await reader.goto(consoleUrl(screen));
      await reader.getByRole('table').first().waitFor();
      expect(await reader.getByRole('form').count(), screen).toBe(0);
      expect(await reader.getByRole('button', { name: 'Delete' }).count(), screen).toBe(0);
    }
    await reader.close();
  });
});
