import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startServer } from '../../src/server';
import { createTestDatabase } from '../support/database';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bootstrap-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('first start', () => {
  it('creates one organization, admin user and key, writes the key 0600, and never again', async () => {
    const database = await createTestDatabase();
    const config = { ...loadConfig({}), databaseUrl: database.url, dataDir, adminPort: 0, logLevel: 'silent', bootstrapApiKey: null };
    const write = process.stdout.write;
    let printed = '';
    process.stdout.write = ((chunk: string) => ((printed += chunk), true)) as never;
    let first;
    try {
      first = await startServer(config, { announceBootstrap: true });
    } finally {
      process.stdout.write = write;
    }
    try {
      const file = path.join(dataDir, 'initial-api-key');
      const key = fs.readFileSync(file, 'utf8').trim();
      expect(key).toMatch(/^cnpy_/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(printed).toContain(key);
      const res = await fetch(`${first.adminUrl}/users/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await res.json()) as any).data.role).toBe('admin');
    } finally {
      await first.close();
    }
    // The generated secret key persists in the data dir, so encrypted secrets stay readable.
    expect(fs.statSync(path.join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
    const second = await startServer(config, { announceBootstrap: true });
    try {
      expect(second.bootstrap).toBeNull();
    } finally {
      await second.close();
      await database.drop();
    }
  });
});

describe('settings', () => {
  it('reads defaults and refuses nonsense', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ adminPort: 4000, devicePort: 4001, databaseUrl: null });
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(loadConfig({ CANOPY_ADMIN_PORT: '5000', CANOPY_PUBLIC_URL: 'https://canopy.example.com/' }).publicUrl).toBe('https://canopy.example.com');
    expect(() => loadConfig({ CANOPY_ADMIN_PORT: 'http' })).toThrow(/CANOPY_ADMIN_PORT/);
    expect(() => loadConfig({ CANOPY_SECRET_KEY: 'short' })).toThrow(/CANOPY_SECRET_KEY/);
  });

  it('reads handshake shedding, and refuses values out of range', () => {
    expect(loadConfig({})).toMatchObject({ deviceHandshakeConcurrency: 64, deviceHandshakeMaxLoopDelayMs: 50 });
    expect(loadConfig({ CANOPY_DEVICE_HANDSHAKE_CONCURRENCY: '256', CANOPY_DEVICE_HANDSHAKE_MAX_LOOP_DELAY_MS: '200' })).toMatchObject({ deviceHandshakeConcurrency: 256, deviceHandshakeMaxLoopDelayMs: 200 });
    expect(() => loadConfig({ CANOPY_DEVICE_HANDSHAKE_CONCURRENCY: '0' })).toThrow(/CANOPY_DEVICE_HANDSHAKE_CONCURRENCY/);
    expect(() => loadConfig({ CANOPY_DEVICE_HANDSHAKE_CONCURRENCY: 'many' })).toThrow(/CANOPY_DEVICE_HANDSHAKE_CONCURRENCY/);
    // Under 10 ms the 10 ms timer that measures it would shed on its own jitter.
    expect(() => loadConfig({ CANOPY_DEVICE_HANDSHAKE_MAX_LOOP_DELAY_MS: '5' })).toThrow(/CANOPY_DEVICE_HANDSHAKE_MAX_LOOP_DELAY_MS must be an integer from 10 to 60000/);
  });

  it('reads the per-address handshake limits and deadlines, and refuses a handshake deadline before the hello one', () => {
    expect(loadConfig({})).toMatchObject({ deviceHandshakePerAddress: 16, deviceHelloWaitPerAddress: 32, deviceHelloWaitTotal: 1024, deviceHelloTimeoutSeconds: 5, deviceHandshakeTimeoutSeconds: 10 });
    expect(
      loadConfig({ CANOPY_DEVICE_HANDSHAKE_PER_ADDRESS: '64', CANOPY_DEVICE_HANDSHAKE_HELLO_TIMEOUT_SECONDS: '2', CANOPY_DEVICE_HANDSHAKE_TIMEOUT_SECONDS: '2' }),
    ).toMatchObject({ deviceHandshakePerAddress: 64, deviceHelloTimeoutSeconds: 2, deviceHandshakeTimeoutSeconds: 2 });
    expect(() => loadConfig({ CANOPY_DEVICE_HANDSHAKE_HELLO_WAIT_TOTAL: '0' })).toThrow(/CANOPY_DEVICE_HANDSHAKE_HELLO_WAIT_TOTAL/);
    expect(() => loadConfig({ CANOPY_DEVICE_HANDSHAKE_HELLO_TIMEOUT_SECONDS: '0' })).toThrow(/CANOPY_DEVICE_HANDSHAKE_HELLO_TIMEOUT_SECONDS must be an integer from 1 to 60/);
    expect(() => loadConfig({ CANOPY_DEVICE_HANDSHAKE_TIMEOUT_SECONDS: '4' })).toThrow(/CANOPY_DEVICE_HANDSHAKE_TIMEOUT_SECONDS must be at least/);
  });
});
