/** Devices, requested tunnels and configure bodies for the tunnel API tests. */
import { expect } from 'vitest';
import type { TestServer } from './server';
import { wgKeyPair, HAS_WG } from './wireguard';
import { generateWireguardKeyPair } from '../../src/tunnels/wireguard-keys';

let serial = 0;

export async function createTestDevice(t: TestServer, identifier = `tunnel-device-${++serial}`): Promise<string> {
  const product = await t.api('POST', '/products', { name: `tunnel-product-${++serial}` });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const device = await t.api('POST', '/devices', { identifier, product_prn: product.body.product.prn });
  expect(device.status, JSON.stringify(device.body)).toBe(201);
  return device.body.device.prn;
}

export async function requestTunnel(t: TestServer, devicePrn: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await t.api('POST', '/tunnels', { device_prn: devicePrn, device_tunnel_port: 22, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.tunnel;
}

/** A device key pair, made by `wg` when it is there so the server is checked against wg itself. */
export function deviceKeys(): { privateKey: string; publicKey: string } {
  return HAS_WG ? wgKeyPair() : generateWireguardKeyPair();
}

export function configureBody(publicKey: string, extra: Record<string, unknown> = {}) {
  return { cidr_blocks: ['10.8.0.0/28'], port_ranges: ['8000-8010'], device_proxy_port: 2222, device_public_key: publicKey, ...extra };
}
