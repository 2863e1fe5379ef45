/**
 * The device API call the tunnel agent needs, as one injected function:
 * `(method, path, body?) => {status, body}`, JSON both ways, throwing only for a transport
 * failure. The agent decides per status (a 409 on configure is retried at the next poll, a 404 on
 * close means already gone) and needs no retries of its own: it polls every tunnel_poll_interval.
 * Two ways to get one from the SDK (@canopy/sdk/device: the device certificate, the server CA
 * pinned, one kept-alive connection): `deviceApiRequestOverClient(client)` shares the daemon's
 * DeviceClient, its connection and its retries (its CanopyApiError becomes a status again);
 * `deviceApiRequestOver(transport)` takes a bare DeviceTransport, which `deviceApiFromConfig`
 * builds from the `device_api` keys.
 */
import fs from 'node:fs/promises';
import { CanopyApiError, createDeviceTransport, type DeviceClient } from '@canopy/sdk/device';
import type { DaemonConfig } from '../config/types.ts';

export interface DeviceApiResponse {
  status: number;
  body: any;
}

export type DeviceApiRequest = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => Promise<DeviceApiResponse>;

/** What the agent needs of a transport; the SDK's DeviceTransport has it. */
export interface TextTransport {
  send(method: string, pathAndQuery: string, options?: { body?: unknown }): Promise<{ status: number; text: string }>;
}

export function deviceApiRequestOver(transport: TextTransport): DeviceApiRequest {
  return async (method, path, body) => {
    const response = await transport.send(method, path, body === undefined ? {} : { body });
    let parsed: unknown = null;
    try {
      parsed = response.text ? JSON.parse(response.text) : null;
    } catch {
      parsed = response.text;
    }
    return { status: response.status, body: parsed };
  };
}

export interface DeviceApi {
  request: DeviceApiRequest;
  /** Closes the kept-alive connection. */
  close(): void;
}

/** The SDK transport from the run-time configuration's `device_api` keys, wrapped for the agent. */
export async function deviceApiFromConfig(config: Pick<DaemonConfig, 'device_api'>): Promise<DeviceApi> {
  const api = config.device_api;
  const [certPem, keyPem, caPem] = await Promise.all([
    fs.readFile(api.certificate_path, 'utf8'),
    fs.readFile(api.private_key_path, 'utf8'),
    api.server_ca_path ? fs.readFile(api.server_ca_path, 'utf8') : Promise.resolve(undefined),
  ]);
  const transport = createDeviceTransport({ baseUrl: api.url, certPem, keyPem, caPem });
  return { request: deviceApiRequestOver(transport), close: () => transport.close() };
}

/** The tunnel calls of the SDK's DeviceClient as a DeviceApiRequest (only the paths the agent uses). */
export function deviceApiRequestOverClient(client: Pick<DeviceClient, 'listTunnels' | 'configureTunnel' | 'closeTunnel'>): DeviceApiRequest {
  return async (method, path, body) => {
    const url = new URL(path, 'https://device.invalid');
    try {
      if (method === 'GET' && url.pathname === '/tunnels') {
        const limit = url.searchParams.get('limit');
        return { status: 200, body: await client.listTunnels({ page: url.searchParams.get('page') ?? undefined, limit: limit ? Number(limit) : undefined }) };
      }
      if (method === 'POST' && url.pathname === '/tunnels/configure') {
        return { status: 200, body: { data: await client.configureTunnel(body as Parameters<DeviceClient['configureTunnel']>[0]) } };
      }
      const close = /^\/tunnels\/([^/]+)$/.exec(url.pathname);
      if (method === 'PATCH' && close) {
        return { status: 200, body: { data: await client.closeTunnel(decodeURIComponent(close[1]), body as Parameters<DeviceClient['closeTunnel']>[1]) } };
      }
    } catch (error) {
      if (error instanceof CanopyApiError) return { status: error.status, body: { errors: error.errors } };
      throw error;
    }
    throw new Error(`no device client call for ${method} ${url.pathname}`);
  };
}
