/**
 * The device client against a real server's device API over mutual TLS: typed update checks and
 * reports on one kept-alive connection, the pinned CA, and retries with backoff when the server
 * is unreachable.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanopyApiError, CanopyNetworkError, createDeviceClient } from '../src/device/index';
import { makeRootCa } from '../../server/test/support/certificates';
import { deviceEnrollment, type EnrolledDevice } from '../../server/test/support/device-json-client';
import { startTestServer, type TestServer } from '../../server/test/support/server';

let server: TestServer;
let device: EnrolledDevice;
beforeAll(async () => {
  server = await startTestServer();
  device = await deviceEnrollment(server).device(server);
});
afterAll(() => server?.close());

const clientFor = (extra: Record<string, unknown> = {}) =>
  createDeviceClient({ baseUrl: server.deviceUrl, certPem: device.certificate.certPem, keyPem: device.certificate.keyPem, caPem: server.deviceServerCaPem, ...extra });

describe('device client', () => {
  it('checks for updates, reads itself and reports, typed', async () => {
    // A bundle of one artifact version (no binary is needed to report on it).
    const artifact = await server.api('POST', '/artifacts', { name: 'device-client' });
    const version = await server.api('POST', '/artifact_versions', { artifact_prn: artifact.body.artifact.prn, version: '1.0.0' });
    const created = await server.api('POST', '/bundles', { artifact_version_prns: [version.body.artifact_version.prn] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const bundle = created.body.bundle;
    const client = clientFor();
    try {
      const check = await client.checkForUpdate({ releaseVersion: '1.0.0' }, ['source_type', 'manifest']);
      expect(check.status).toBe('no_update');
      const me = await client.me();
      expect(me.prn).toBe(device.prn);
      const report = await client.report({ status: 'failed', release_prn: null, bundle_prn: bundle.prn, reason: 'disk full' });
      expect(report).toMatchObject({ device_prn: device.prn, status: 'failed', reason: 'disk full', bundle_prn: bundle.prn });
      // The update check recorded the connection once.
      const connected = await server.api('GET', `/events?type=device&subtype=connected&resource_prn=${encodeURIComponent(device.prn)}&limit=100`);
      expect(connected.body.events).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('throws the API error at once for a considered refusal', async () => {
    const client = clientFor({ sleep: async () => expect.unreachable('no retry for a 422') });
    try {
      const error = await client.report({ status: 'failed', release_prn: null, bundle_prn: `prn:1:${server.organizationId}:bundle:00000000-0000-4000-8000-000000000000`, reason: 'x' }).catch((e) => e);
      expect(error).toBeInstanceOf(CanopyApiError);
      expect(error).toMatchObject({ status: 422, code: 'validation', context: { field: 'bundle_prn', reason: 'not_found' } });
    } finally {
      client.close();
    }
  });

  it('refuses a server whose certificate the pinned CA did not sign', async () => {
    const otherCa = await makeRootCa();
    const client = clientFor({ caPem: otherCa.certPem, attempts: 1 });
    try {
      await expect(client.me()).rejects.toBeInstanceOf(CanopyNetworkError);
    } finally {
      client.close();
    }
  });

  it('retries an unreachable server with growing jittered delays, then gives up', async () => {
    // A port that was free a moment ago: connections are refused.
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const waits: number[] = [];
    const client = clientFor({
      baseUrl: `https://127.0.0.1:${port}`,
      attempts: 4,
      backoff: { baseMs: 100, maxDelayMs: 1000 },
      random: () => 0.5,
      sleep: async (ms: number) => void waits.push(ms),
    });
    try {
      await expect(client.checkForUpdate({}, [])).rejects.toBeInstanceOf(CanopyNetworkError);
      expect(waits).toEqual([50, 100, 200]);
    } finally {
      client.close();
    }
  });
});
