/**
 * Sessions in real Chromium against a real server: a user signs in with a password, sees their
 * sessions and revokes another one (the API refuses its token at once), signs out and the old
 * token is refused; signing out while offline still forgets the session here.
 */
import type { Page } from 'playwright-core';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SESSION_STORAGE_KEY } from '../../src/api/session';
import { confirmDialog, expectAccessible, useConsoleBrowser } from './harness';

const t = useConsoleBrowser();
const PASSWORD = 'a long enough password';
let username = '';

async function signInWithPassword(page: Page): Promise<string> {
  await page.goto(t.consoleUrl());
  await page.getByLabel(/^Username or email/).fill(username);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('signed-in-as').waitFor();
  return page.evaluate((key) => JSON.parse(sessionStorage.getItem(key)!).apiKey as string, SESSION_STORAGE_KEY);
}

const status = (key: string) => t.server.api('GET', '/users/me', undefined, { key }).then((r) => r.status);

describe('sessions', () => {
  it('lists your sessions and revokes another one at once, with a read-only role', async () => {
    username = `reader-${randomUUID().slice(0, 8)}`;
    expect((await t.server.api('POST', '/users', { username, password: PASSWORD, role: 'read' })).status).toBe(201);
    const token = await signInWithPassword(t.page);
    expect(await status(token)).toBe(200);
    const other = await t.server.api('POST', '/users/auth', { username, password: PASSWORD }, { key: null, headers: { 'user-agent': 'other-client/1.0' } });
    const otherToken = other.body.data.token as string;

    await t.page.getByRole('link', { name: 'Your sessions' }).click();
    expect(new URL(t.page.url()).pathname).toBe('/console/sessions');
    await expect.poll(() => t.page.getByTestId('session-row').count()).toBe(2);
    await expect.poll(() => t.page.getByTestId('session-row').filter({ hasText: 'This tab' }).count()).toBe(1);
    await expectAccessible(t.page, 'sessions');

    await t.page.getByTestId('session-row').filter({ hasText: 'other-client/1.0' }).getByRole('button', { name: 'Revoke' }).click();
    await confirmDialog(t.page);
    await expect.poll(() => t.page.getByTestId('session-row').count()).toBe(1);
    expect(await status(otherToken)).toBe(401);
    expect(await status(token)).toBe(200);
  });

  it('signs out on the server: the old token is refused at once', async () => {
    const token = await t.page.evaluate((key) => JSON.parse(sessionStorage.getItem(key)!).apiKey as string, SESSION_STORAGE_KEY);
    expect(await status(token)).toBe(200);
    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await t.page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await status(token)).toBe(401);
  });

  it('still signs out here when the server cannot be reached', async () => {
    const token = await signInWithPassword(t.page);
    await t.page.context().setOffline(true);
    try {
      await t.page.getByRole('button', { name: 'Sign out' }).click();
      await t.page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await t.page.evaluate(() => sessionStorage.length)).toBe(0);
    } finally {
      await t.page.context().setOffline(false);
    }
    // The server never heard of it: the token lives on until it idles out (or is revoked from another session).
    expect(await status(token)).toBe(200);
  });
});
