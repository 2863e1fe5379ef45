/**
 * Artifacts, versions and binaries in real Chromium against a real server: a file uploaded from
 * the browser in parts with a progress bar, cut short and resumed after a reload (only the
 * missing parts are sent again), the state machine moving on screen, a signature made in the
 * page with a picked key file (never sent), a pasted bad signature refused with the API's code;
 * a read-only user; 390 px; axe-core on every screen.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadedBinary } from '../../../server/test/support/binaries';
import { startTestServer, type TestServer } from '../../../server/test/support/server';
import { assertBuilt, confirmDialog, consoleDist, expectAccessible, launchChromium, newPage, signInWith } from './harness';

const MiB = 1024 * 1024;
const TARGET = 'aarch64-unknown-linux-gnu';

let server: TestServer;
let browser: Browser;
let page: Page;
let dir: string;
let versionPrn: string;

beforeAll(async () => {
  assertBuilt();
  server = await startTestServer({ consoleDir: consoleDist });
  browser = await launchChromium();
  page = await newPage(browser);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-binaries-'));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const consoleUrl = (p = '') => `${server.url}/console/${p}`;
/** The PUT of a part's bytes to its presigned URL (not the part's declaration under /binaries). */
const isPartBytes = (request: Request) => request.method() === 'PUT' && !new URL(request.url()).pathname.startsWith('/binaries/');

async function pickUpload(target: Page, file: string) {
  await target.getByLabel(/^Target/).fill(TARGET);
  await target.getByRole('form', { name: 'Upload a binary' }).locator('input[type=file]').setInputFiles(file);
}

describe('artifacts, versions and browser uploads', () => {
  it('creates an artifact and a version from their list screens', async () => {
    await signInWith(page, consoleUrl('artifacts'), server.apiKey);
    await page.getByText('No artifacts yet').waitFor();
    await expectAccessible(page, 'artifacts, empty');
    await page.getByLabel(/^Artifact name/).fill('os-image');
    await page.getByRole('button', { name: 'Create artifact' }).click();
    await page.getByRole('link', { name: 'os-image' }).click();
    await page.getByText('No versions yet').waitFor();
    await page.getByLabel(/^Version/).fill('1.0.0');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('link', { name: '1.0.0' }).click();
    await page.getByText('No binaries yet').waitFor();
    versionPrn = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    const version = (await server.api('GET', `/artifact_versions/${versionPrn}`)).body.artifact_version;
    expect(version).toMatchObject({ version: '1.0.0' });
    await expectAccessible(page, 'artifact version');
  });

  it('uploads in parts, is cut short, and after a reload sends only the missing parts', async () => {
    const bytes = randomBytes(6 * MiB); // two parts: 5 MiB and 1 MiB
    const file = path.join(dir, 'image.bin');
    fs.writeFileSync(file, bytes);

    // Let the first part's bytes through and cut the others off.
    let allowed = 0;
    await page.route(
      (url) => !url.pathname.startsWith('/binaries/') && !url.pathname.startsWith('/console/'),
      async (route) => {
        if (route.request().method() !== 'PUT') return route.fallback();
        if (allowed++ === 0) return route.continue();
        return route.abort('connectionreset');
      },
    );
    await pickUpload(page, file);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('The upload stopped').waitFor({ timeout: 60_000 });
    await page.unrouteAll({ behavior: 'wait' });

    const [binary] = (await server.api('GET', `/binaries?search=${encodeURIComponent(`artifact_version_prn:'${versionPrn}'`)}`)).body.binaries;
    expect(binary).toMatchObject({ state: 'uploadable', size: bytes.length, hash: createHash('sha256').update(bytes).digest('hex') });
    await expect.poll(async () => (await server.api('GET', `/binaries/${binary.prn}/parts`)).body.binary_parts.filter((p: { state: string }) => p.state === 'valid').length).toBe(1);

    await page.reload();
    await page.getByTestId('unfinished-upload').waitFor();
    expect(await page.getByTestId('unfinished-upload').textContent()).toContain(`image.bin (6.0 MiB) for ${TARGET}`);
    await expectAccessible(page, 'version with an unfinished upload');

    const sent: string[] = [];
    page.on('request', (request) => {
      if (isPartBytes(request)) sent.push(request.url());
    });
    // Hold each part's bytes a moment, so the progress bar is seen between parts.
    await page.route(
      (url) => !url.pathname.startsWith('/binaries/') && !url.pathname.startsWith('/console/'),
      async (route) => {
        if (route.request().method() === 'PUT') await new Promise((r) => setTimeout(r, 500));
        return route.fallback();
      },
    );
    const seen = new Set<string>();
    await pickUpload(page, file);
    await page.getByRole('button', { name: 'Resume upload' }).click();
    await expect
      .poll(async () => {
        const status = (await page.getByTestId('upload-status').textContent()) ?? '';
        seen.add(status);
        return status;
      }, { timeout: 60_000 })
      .toBe('Done: the binary is signable');
    await page.unrouteAll({ behavior: 'wait' });
    expect(sent).toHaveLength(1);
    // The held part (whichever was let through) counted at once, the bar part-way, then full.
    expect([...seen]).toContainEqual(expect.stringMatching(/^Uploading: 1 of 2 parts \((5|1)\.0 MiB of 6\.0 MiB\), 1 already held$/));
    expect(await page.getByTestId('upload-progress').getAttribute('data-phase')).toBe('done');
    expect(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('aria-valuenow')).toBe('100');
    expect((await server.api('GET', `/binaries/${binary.prn}`)).body.binary.state).toBe('signable');
    await page.getByTestId('binary-row').waitFor();
    expect(await page.getByTestId('unfinished-upload').count()).toBe(0);
    await page.reload();
    await page.getByTestId('binary-row').waitFor();
    expect(await page.getByTestId('unfinished-upload').count()).toBe(0);
  });

  it('shows the state machine moving, signs in the page with a key file that is never sent', async () => {
    const { prn } = await uploadedBinary(server.api, randomBytes(1024), { versionPrn, target: 'riscv64gc-unknown-linux-gnu', until: 'hashable' });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const publicValue = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64');
    expect((await server.api('POST', '/signing_keys', { name: 'release-key', value: publicValue })).status).toBe(201);
    const keyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const keyFile = path.join(dir, 'release-key.pem');
    fs.writeFileSync(keyFile, keyPem);

    await page.goto(consoleUrl(`binaries/${prn}`));
    await expect.poll(() => page.getByTestId('binary-state').getAttribute('data-state')).toBe('hashable');
    await expectAccessible(page, 'binary, hashable');
    await page.getByRole('button', { name: 'Verify the bytes' }).click();
    await expect.poll(() => page.getByTestId('binary-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('signable');

    const bodies: string[] = [];
    page.on('request', (request) => bodies.push(request.postData() ?? ''));
    await page.getByRole('form', { name: 'Sign in the browser' }).locator('input[type=file]').setInputFiles(keyFile);
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await page.getByTestId('signature-row').waitFor();
    await expect.poll(() => page.getByTestId('binary-state').getAttribute('data-state')).toBe('signed');
    const keyBody = keyPem.split('\n')[1];
    expect(bodies.some((b) => b.includes('"signature"'))).toBe(true);
    expect(bodies.filter((b) => b.includes(keyBody.slice(0, 20)))).toEqual([]);
    const signatures = (await server.api('GET', `/binary_signatures?search=${encodeURIComponent(`binary_prn:'${prn}'`)}`)).body.binary_signatures;
    expect(signatures).toHaveLength(1);
    await expectAccessible(page, 'binary, signed');

    // A pasted signature that does not verify: the API's code and field on screen.
    await page.getByRole('combobox', { name: 'Signing key' }).click();
    await page.getByRole('option', { name: 'release-key' }).click();
    await page.getByLabel(/^Signature \(128/).fill('0'.repeat(128));
    await page.getByRole('button', { name: 'Add signature' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Could not add the signature' }).textContent()).toMatch(/422 /);

    // Deleting the only signature makes it signable again, on screen.
    await page.getByTestId('signature-row').getByRole('button', { name: 'Delete' }).click();
    await confirmDialog(page);
    await expect.poll(() => page.getByTestId('signature-row').count()).toBe(0);
  });

  it('is usable at 390 px wide', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(consoleUrl(`artifact-versions/${versionPrn}`));
    await page.getByTestId('binary-row').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'version at 390 px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows a read-only user the binaries but no upload, signing or delete', async () => {
    const reader = await newPage(browser);
    await signInWith(reader, consoleUrl(`artifact-versions/${versionPrn}`), await server.keyWithRole('read'));
    await reader.getByTestId('binary-row').first().waitFor();
    expect(await reader.getByRole('form', { name: 'Upload a binary' }).count()).toBe(0);
    await reader.getByTestId('binary-row').first().getByRole('link').click();
    await reader.getByTestId('binary-state').waitFor();
    expect(await reader.getByRole('button', { name: /^(Sign|Destroy|Add signature|Delete|Verify the bytes)$/ }).count()).toBe(0);
    await reader.close();
  });
});
