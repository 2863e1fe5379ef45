/**
 * The device API under abuse: a thousand failed handshakes in a row of every kind (not TLS at
 * all, a client that rejects the server, connections dropped mid-handshake, certificates nobody
 * registered), and the server still serves a real device afterwards.
 */
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceRequest } from '../support/device-client';
import { createDevice, createProduct, registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
let port: number;
beforeAll(async () => {
  t = await startTestServer();
  port = Number(new URL(t.deviceUrl).port);
});
afterAll(async () => {
  await t?.close();
});

/** Resolves once the connection is over, however it ended. */
function settle(socket: net.Socket, onReady?: () => void): Promise<void> {
  return new Promise((resolve) => {
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    if (onReady) socket.once('connect', onReady);
    socket.setTimeout(5_000, () => socket.destroy());
  });
}

const attacks: Array<(i: number, stranger: TestCertificate) => Promise<void>> = [
  // Plain text on the TLS port.
  async () => {
    const socket = net.connect(port, '127.0.0.1');
    await settle(socket, () => socket.write('GET /update HTTP/1.1\r\nHost: x\r\n\r\n'));
  },
  // A client that does not trust the server certificate aborts the handshake.
  async () => {
    const socket = tls.connect({ port, host: '127.0.0.1', servername: 'localhost' });
    await settle(socket);
  },
  // Dropped right after the TCP connect.
  async () => {
    const socket = net.connect(port, '127.0.0.1');
    await settle(socket, () => socket.destroy());
  },
  // The start of a ClientHello that never finishes: the client vanishes mid-handshake.
  async () => {
    const socket = net.connect(port, '127.0.0.1');
    await settle(socket, () => {
      socket.write(Buffer.from([0x16, 0x03, 0x01, 0xff, 0xff, 0x01, 0x00, 0x00]));
      setTimeout(() => socket.destroy(), 50);
    });
  },
  // A full handshake with a certificate of an unregistered CA: 401.
  async (i, stranger) => {
    const leaf = await strangerLeaf(stranger, i);
    const res = await deviceRequest(t, '/update', { credentials: leaf });
    expect(res.status).toBe(401);
  },
];

let strangerLeafCache: { certPem: string; keyPem: string } | null = null;
async function strangerLeaf(stranger: TestCertificate, i: number) {
  strangerLeafCache ??= await makeLeafCertificate(stranger, `stranger-${i}`);
  return strangerLeafCache;
}

describe('device API resilience', () => {
  it('keeps serving after 1,000 failed handshakes in a row', async () => {
    const stranger = await makeRootCa();
    const total = 1_000;
    const concurrency = 25;
    for (let start = 0; start < total; start += concurrency) {
      await Promise.all(Array.from({ length: concurrency }, (_, k) => attacks[(start + k) % attacks.length](start + k, stranger)));
    }

    const root = await makeRootCa();
    await registeredCa(t.api, root);
    const product = await createProduct(t.api, 'resilient');
    const device = await createDevice(t.api, product, 'dev-after-storm');
    const certificate = await makeLeafCertificate(root, 'dev-after-storm');
    await registerDeviceCertificate(t.api, device.prn, certificate);
    const res = await deviceRequest(t, '/update', { credentials: certificate });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'no_update' });
    expect((await t.api('GET', '/healthz')).status).toBe(200);
  }, 120_000);
});
