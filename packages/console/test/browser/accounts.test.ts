/**
 * Users and API keys (admins only) in real Chromium against a real server: create a user who
 * then signs in with the password, delete it; create a key (shown once) that works against the
 * API, revoke it and see the API refuse it; the API's errors, 390 px, a non-admin, axe-core.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { confirmDialog, expectAccessible, newPage, signInWith, useConsoleBrowser } from './harness';

const t = useConsoleBrowser();

const consoleUrl = t.consoleUrl;
const failure = (target: Page) => target.getByRole('alert', { name: /^Could not/ }).textContent();

async function pickRole(target: Page, role: string) {
  await target.getByLabel(/^Role/).first().click();
  await target.getByRole('option', { name: new RegExp(`^${role}:`) }).click();
}

describe('users and API keys', () => {
  it('creates a user who can sign in, refuses a short password with the field, and deletes the user', async () => {
    await signInWith(t.page, consoleUrl(), t.server.apiKey);
    await t.page.getByRole('link', { name: 'Users' }).click();
    expect(new URL(t.page.url()).pathname).toBe('/console/users');
    await expect.poll(() => t.page.getByTestId('user-row').count()).toBe(1); // the bootstrap admin
    await expectAccessible(t.page, 'users');

    await t.page.getByLabel(/^Username/).fill('operator');
    await t.page.getByLabel(/^Password/).fill('short');
    await t.page.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => failure(t.page)).toMatch(/4\d\d \w+.*password/);

    await t.page.getByLabel(/^Password/).fill('a long enough password');
    await pickRole(t.page, 'write');
    await t.page.getByRole('button', { name: 'Create user' }).click();
    // The server hashes the password first: over vitest's one second on a loaded machine.
    await expect.poll(() => t.page.getByTestId('user-row').count(), { timeout: 20_000 }).toBe(2);
    const signIn = await t.server.api('POST', '/users/auth', { username: 'operator', password: 'a long enough password' }, { key: null });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);

    await t.page.getByTestId('user-row').filter({ hasText: 'operator' }).getByRole('button', { name: 'Delete' }).click();
    await confirmDialog(t.page);
    await expect.poll(() => t.page.getByTestId('user-row').count()).toBe(1);
    expect((await t.server.api('GET', '/users')).body.users).toHaveLength(1);
  });

  it('creates an API key shown once, which works until it is revoked', async () => {
    await t.page.getByRole('link', { name: 'API keys' }).click();
    expect(new URL(t.page.url()).pathname).toBe('/console/api-keys');
    await t.page.getByTestId('api-key-row').first().waitFor(); // at least the bootstrap key
    const before = await t.page.getByTestId('api-key-row').count();
    await t.page.getByLabel(/^Key name/).fill('ci pipeline');
    await t.page.getByRole('button', { name: 'Create API key' }).click();
    await t.page.getByTestId('secret-once').waitFor();
    const key = (await t.page.getByTestId('secret-once').textContent())!.trim();
    await expect.poll(() => t.page.getByTestId('api-key-row').count()).toBe(before + 1);
    expect((await t.server.api('GET', '/products', undefined, { key })).status).toBe(200);
    expect((await t.server.api('POST', '/products', { name: 'x' }, { key })).status).toBe(403); // role read, the default
    await expectAccessible(t.page, 'API keys (new key)');

    const row = t.page.getByTestId('api-key-row').filter({ hasText: 'ci pipeline' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await confirmDialog(t.page);
    await expect.poll(() => row.getByTestId('api-key-state').textContent()).toMatch(/^Revoked/);
    expect((await t.server.api('GET', '/products', undefined, { key })).status).toBe(401);
  });

  it('is usable at 390 px wide', async () => {
    await t.page.setViewportSize({ width: 390, height: 800 });
    for (const path of ['users', 'api-keys']) {
      await t.page.goto(consoleUrl(path));
      await t.page.getByRole('table').waitFor();
      expect(await t.page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      await expectAccessible(t.page, `${path} at 390 px`);
    }
    await t.page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows a non-admin neither screen', async () => {
    const writer = await newPage(t.browser);
    await signInWith(writer, consoleUrl(), await t.server.keyWithRole('write'));
    expect(await writer.getByRole('link', { name: /^(Users|API keys)$/ }).count()).toBe(0);
    await writer.goto(consoleUrl('users'));
    await writer.getByText('Only admins manage users').waitFor();
    await writer.goto(consoleUrl('api-keys'));
    await writer.getByText('Only admins manage API keys').waitFor();
    expect(await writer.getByRole('button', { name: 'Create API key' }).count()).toBe(0);
    await expectAccessible(writer, 'API keys (not admin)');
    await writer.close();
  });
});
