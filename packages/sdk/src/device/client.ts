/**
 * The typed device API client: each call's parameters and answers come from the device API's
 * OpenAPI document (src/generated/device-api.d.ts, written by scripts/generate.ts from the
 * server's routes). Calls that fail for want of a server (no connection, 429, 502-504) are tried
 * again after a jittered, growing delay (backoff.ts); anything else throws CanopyApiError at once.
 *
 * Retried reports: a report whose answer was lost may be recorded twice. The server keeps the
 * latest report per device and release, so a repeat changes no count (device API reference,
 * site/docs/canopy-core/tools/device-api.mdx).
 */
import { CanopyApiError, CanopyNetworkError } from '../errors';
import type { paths } from '../generated/device-api';
import { backoffDelayMs, DEFAULT_BACKOFF, isRetryable, type BackoffPolicy } from './backoff';
import { createDeviceTransport, type DeviceTlsOptions, type DeviceTransport, type RawResponse } from './transport';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The answer of `GET /update`: `status`, plus each expansion asked for (null when there is none). */
export type UpdateCheck = Json<paths['/update']['get']['responses'][200]>;
/** One binary of an update's manifest (`expand=manifest`): where to download it, what it hashes to, its signatures. */
export type ManifestEntry = NonNullable<UpdateCheck['manifest']>[number];
export type ManifestSignature = ManifestEntry['signatures'][number];
export type UpdateReportBody = NonNullable<paths['/update/reports']['post']['requestBody']>['content']['application/json'];
export type UpdateReport = Json<paths['/update/reports']['post']['responses'][201]>['data'];
export type DeviceMe = Json<paths['/device/me']['get']['responses'][200]>['data'];
export type TunnelList = Json<paths['/tunnels']['get']['responses'][200]>;
export type Tunnel = TunnelList['tunnels'][number];
export type TunnelConfigureBody = NonNullable<paths['/tunnels/configure']['post']['requestBody']>['content']['application/json'];
export type TunnelCloseBody = NonNullable<paths['/tunnels/{prn}']['patch']['requestBody']>['content']['application/json'];

/** What the device runs now, sent as the position headers of `GET /update`. */
export interface DevicePosition {
  releasePrn?: string | null;
  bundlePrn?: string | null;
  releaseVersion?: string | null;
}

export interface DeviceClientOptions extends DeviceTlsOptions {
  /** Attempts per call, the first included; default 4. */
  attempts?: number;
  backoff?: BackoffPolicy;
  /** Injected in tests: the random draw for jitter, and the wait. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Replaces the transport (tests). */
  transport?: DeviceTransport;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface DeviceClient {
  readonly baseUrl: string;
  checkForUpdate(position: DevicePosition, expand: readonly string[], options?: CallOptions): Promise<UpdateCheck>;
  report(body: UpdateReportBody, options?: CallOptions): Promise<UpdateReport>;
  me(expand?: readonly string[], options?: CallOptions): Promise<DeviceMe>;
  listTunnels(query?: { page?: string; limit?: number }, options?: CallOptions): Promise<TunnelList>;
  configureTunnel(body: TunnelConfigureBody, options?: CallOptions): Promise<Tunnel>;
  closeTunnel(prn: string, body: TunnelCloseBody, options?: CallOptions): Promise<Tunnel>;
  close(): void;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parse(response: RawResponse): unknown {
  if (!response.text) return undefined;
  try {
    return JSON.parse(response.text);
  } catch {
    return response.text;
  }
}

export function createDeviceClient(options: DeviceClientOptions): DeviceClient {
  const transport = options.transport ?? createDeviceTransport(options);
  const attempts = Math.max(1, options.attempts ?? 4);
  const policy = options.backoff ?? DEFAULT_BACKOFF;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;

  async function call<T>(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let response: RawResponse | null = null;
      let failure: unknown;
      try {
        response = await transport.send(method, path, init);
      } catch (error) {
        if (init.signal?.aborted) throw error;
        failure = error;
      }
      if (response && response.status >= 200 && response.status < 300) return parse(response) as T;
      if (attempt >= attempts || !isRetryable(response ? response.status : null)) {
        if (response) throw CanopyApiError.fromBody(response.status, parse(response), method, path.split('?')[0]);
        throw new CanopyNetworkError(`${method} ${transport.baseUrl}${path} failed: ${(failure as Error)?.message ?? String(failure)}`, { cause: failure });
      }
      await sleep(backoffDelayMs(attempt, policy, random()), init.signal);
    }
  }

  return {
    baseUrl: transport.baseUrl,
    checkForUpdate(position, expand, callOptions = {}) {
      const headers: Record<string, string> = {};
      if (position.releasePrn) headers['canopy-release-prn'] = position.releasePrn;
      if (position.bundlePrn) headers['canopy-bundle-prn'] = position.bundlePrn;
      if (position.releaseVersion) headers['canopy-release-version'] = position.releaseVersion;
      const query = expand.length ? `?expand=${expand.map(encodeURIComponent).join(',')}` : '';
      return call('GET', `/update${query}`, { headers, signal: callOptions.signal });
    },
    async report(body, callOptions = {}) {
      return (await call<{ data: UpdateReport }>('POST', '/update/reports', { body, signal: callOptions.signal })).data;
    },
    async me(expand = [], callOptions = {}) {
      const query = expand.length ? `?expand=${expand.join(',')}` : '';
      return (await call<{ data: DeviceMe }>('GET', `/device/me${query}`, { signal: callOptions.signal })).data;
    },
    listTunnels(query = {}, callOptions = {}) {
      const params = new URLSearchParams();
      if (query.page) params.set('page', query.page);
      if (query.limit) params.set('limit', String(query.limit));
      const text = params.toString();
      return call('GET', `/tunnels${text ? `?${text}` : ''}`, { signal: callOptions.signal });
    },
    async configureTunnel(body, callOptions = {}) {
      return (await call<{ data: Tunnel }>('POST', '/tunnels/configure', { body, signal: callOptions.signal })).data;
    },
    async closeTunnel(prn, body, callOptions = {}) {
      return (await call<{ data: Tunnel }>('PATCH', `/tunnels/${encodeURIComponent(prn)}`, { body, signal: callOptions.signal })).data;
    },
    close: () => transport.close(),
  };
}
