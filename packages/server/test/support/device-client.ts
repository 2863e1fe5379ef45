/**
 * Calls the device API over real mutual TLS: the test presents a client certificate (leaf, plus
 * any intermediates after it in the same PEM) and trusts the server's CA, as a device would.
 */
import https from 'node:https';
import { headersOf, readJsonBody } from './json-body';
import type { ApiResponse } from './server';

export interface DeviceCredentials {
  /** Leaf PEM, optionally followed by intermediate PEMs. */
  certPem: string;
  keyPem: string;
}

export interface DeviceRequestOptions {
  credentials?: DeviceCredentials | null;
  headers?: Record<string, string>;
  method?: string;
  /** A keep-alive agent (see deviceAgent) to send several requests over one connection. */
  agent?: https.Agent;
  /** Sent as JSON. */
  body?: unknown;
}

export interface DeviceTarget {
  deviceUrl: string;
  deviceServerCaPem: string;
}

/** One TLS connection reused by every request through it. */
export function deviceAgent(target: DeviceTarget, credentials?: DeviceCredentials | null): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets: 1, ca: target.deviceServerCaPem, cert: credentials?.certPem, key: credentials?.keyPem });
}

export function deviceRequest<T = any>(target: DeviceTarget, path: string, options: DeviceRequestOptions = {}): Promise<ApiResponse<T> & { socketPort: number | undefined }> {
  const url = new URL(path, target.deviceUrl);
  const credentials = options.credentials;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = payload === undefined ? options.headers : { ...options.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers,
        ca: target.deviceServerCaPem,
        ...(options.agent ? { agent: options.agent } : { agent: false, cert: credentials?.certPem, key: credentials?.keyPem }),
      },
      (response) => {
        readJsonBody(response).then(
          (body) => resolve({ status: response.statusCode ?? 0, body: body as T, headers: headersOf(response), socketPort: response.socket?.localPort }),
          reject,
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
