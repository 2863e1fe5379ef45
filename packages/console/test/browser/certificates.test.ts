/**
 * Signing keys, CA certificates (the verification-code flow, running the openssl commands the
 * screen shows with the real openssl CLI) and a device's certificates, in real Chromium against
 * a real server; the API's errors, 390 px, a read-only user, axe-core.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOpensslWorkdir, opensslCreateCa, opensslCreateDeviceCertificate, type OpensslCertificate } from '../../../server/test/support/openssl';
import { confirmDialog, expectAccessible, newPage, signInWith, useConsoleBrowser } from './harness';

const sh = promisify(execFile);

const t = useConsoleBrowser();
let work: { dir: string; remove: () => Promise<void> };
let ca: OpensslCertificate;

beforeAll(async () => {
  work = await makeOpensslWorkdir();
  ca = await opensslCreateCa(work.dir, { name: 'ca', commonName: 'Console Test CA', days: 30 });
});
afterAll(async () => {
  await work?.remove();
});

const consoleUrl = t.consoleUrl;
const count = async (path: string, key: string) => ((await t.server.api('GET', path)).body[key] as unknown[]).length;

describe('signing keys and certificates', () => {
  it('registers a pasted Ed25519 public key, refuses a bad one with the field, and deletes it', async () => {
    await signInWith(t.page, consoleUrl(), t.server.apiKey);
    await t.page.getByRole('link', { name: 'Signing keys' }).click();
    await t.page.getByText('No signing keys yet').waitFor();
    expect(new URL(t.page.url()).pathname).toBe('/console/signing-keys');
    await expectAccessible(t.page, 'signing keys (empty)');

    await t.page.getByLabel(/^Key name/).fill('release-2026');
    await t.page.getByLabel(/^Public key/).fill('not a key');
    await t.page.getByRole('button', { name: 'Create signing key' }).click();
    await expect.poll(() => t.page.getByRole('alert', { name: /^Could not/ }).textContent()).toMatch(/422 \w+.*value/);

    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await t.page.getByLabel(/^Public key/).fill(pem);
    await t.page.getByRole('button', { name: 'Create signing key' }).click();
    await expect.poll(() => t.page.getByTestId('signing-key-row').count()).toBe(1);
    expect((await t.server.api('GET', '/signing_keys')).body.signing_keys).toMatchObject([{ name: 'release-2026' }]);
    await expectAccessible(t.page, 'signing keys');

    await t.page.getByTestId('signing-key-row').getByRole('button', { name: 'Delete' }).click();
    await confirmDialog(t.page);
    await t.page.getByText('No signing keys yet').waitFor();
    expect(await count('/signing_keys', 'signing_keys')).toBe(0);
  });

  it('registers a CA with a verification certificate made by the openssl commands it shows', async () => {
    await t.page.getByRole('link', { name: 'CA certificates' }).click();
    await t.page.getByText('No CA certificates yet').waitFor();
    await t.page.getByRole('button', { name: 'Get a verification code' }).click();
    const code = (await t.page.getByTestId('verification-code').textContent())!.trim();
    expect(code).toMatch(/^[0-9A-F]{32}$/);
    const commands = (await t.page.getByTestId('openssl-commands').textContent())!;
    expect(commands).toContain(`/CN=${code}`);
    // What the screen tells the user to run, run as shown next to ca.pem and ca.key.
    for (const line of commands.split('\n').filter(Boolean)) await sh('sh', ['-c', line], { cwd: work.dir });
    const verificationPem = await readFile(join(work.dir, 'verification.pem'), 'utf8');

    await t.page.getByLabel(/^CA certificate/).fill(ca.certPem);
    await t.page.getByLabel(/^Verification certificate/).fill(ca.certPem);
    await t.page.getByRole('button', { name: 'Register CA' }).click();
    await expect.poll(() => t.page.getByRole('alert', { name: /^Could not/ }).textContent()).toMatch(/422 \w+.*verification_certificate/);

    await t.page.getByLabel(/^Verification certificate/).fill(verificationPem);
    await t.page.getByLabel(/^CA description/).fill('factory line 1');
    await t.page.getByRole('button', { name: 'Register CA' }).click();
    await expect.poll(() => t.page.getByTestId('ca-row').count()).toBe(1);
    expect((await t.server.api('GET', '/ca_certificates')).body.ca_certificates).toMatchObject([{ description: 'factory line 1' }]);
    await expectAccessible(t.page, 'CA certificates');
  });

  it('is usable at 390 px wide', async () => {
    await t.page.setViewportSize({ width: 390, height: 800 });
    await t.page.reload();
    await t.page.getByTestId('ca-row').waitFor();
    expect(await t.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(t.page, 'CA certificates at 390 px');
    await t.page.setViewportSize({ width: 1280, height: 800 });
  });

  it("registers and deletes a device's certificate on the device page", async () => {
    const product = (await t.server.api('POST', '/products', { name: 'sensor' })).body.product;
    const device = (await t.server.api('POST', '/devices', { identifier: 'sensor-1', product_prn: product.prn })).body.device;
    const cert = await opensslCreateDeviceCertificate(work.dir, ca, 'sensor-1');
    await t.page.goto(consoleUrl(`devices/${device.prn}`));
    await t.page.getByText('No certificates').waitFor();
    await t.page.getByRole('textbox', { name: /^Device certificate/ }).fill(cert.certPem);
    await t.page.getByRole('button', { name: 'Register certificate' }).click();
    await expect.poll(() => t.page.getByTestId('device-certificate-row').count()).toBe(1);
    expect(await count(`/device_certificates?device_prn=${encodeURIComponent(device.prn)}`, 'device_certificates')).toBe(1);
    // The same certificate again: the API's 422 names the field.
    await t.page.getByRole('textbox', { name: /^Device certificate/ }).fill(cert.certPem);
    await t.page.getByRole('button', { name: 'Register certificate' }).click();
    await expect.poll(() => t.page.getByRole('alert', { name: /^Could not/ }).textContent()).toMatch(/422 \w+.*certificate/);
    await expectAccessible(t.page, 'device with certificates');
    await t.page.getByTestId('device-certificate-row').getByRole('button', { name: 'Delete' }).click();
    await confirmDialog(t.page);
    await t.page.getByText('No certificates').waitFor();
    expect(await count(`/device_certificates?device_prn=${encodeURIComponent(device.prn)}`, 'device_certificates')).toBe(0);
  });

  it('shows a read-only user no write action', async () => {
    const reader = await newPage(t.browser);
    await signInWith(reader, consoleUrl(), await t.server.keyWithRole('read'));
    expect(await reader.getByRole('link', { name: 'CA certificates' }).count()).toBe(0);
    await reader.getByRole('link', { name: 'Signing keys' }).click();
    await reader.getByText('No signing keys yet').waitFor();
    expect(await reader.getByRole('button', { name: 'Create signing key' }).count()).toBe(0);
    await reader.goto(consoleUrl('ca-certificates'));
    await reader.getByText('Only admins manage CA certificates').waitFor();
    await expectAccessible(reader, 'signing keys (read-only)');
    await reader.close();
  });
});
