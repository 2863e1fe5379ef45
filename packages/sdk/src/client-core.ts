/**
 * The Canopy client: a typed openapi-fetch client over the generated admin API paths (`api`),
 * and an untyped `request` for paths the running server's document does not list yet (the CLI's
 * command table calls documented routes before they land). Both throw CanopyApiError on non-2xx.
 *
 * This module imports nothing from Node, so browsers (the web console) use it through
 * `@canopy/sdk/browser`; client.ts adds Node's transport with a private CA.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths as AdminPaths } from './generated/admin-api';
import { CanopyApiError, CanopyNetworkError } from './errors';
import type { FetchLike } from './fetch-like';

export interface CanopyClientOptions {
  /** Admin API root, e.g. http://localhost:4000. */
  baseUrl: string;
  apiKey?: string;
  /** Sent as `x-api-version` when set. */
  apiVersion?: 1 | 2;
  /** Replaces the transport (tests, proxies). */
  fetch?: FetchLike;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CanopyClient {
  readonly baseUrl: string;
  /** Typed calls: `client.api.GET('/products/{prn}', { params: { path: { prn } } })`. */
  readonly api: Client<AdminPaths>;
  /** Any admin route by method and path; answers the parsed JSON body (undefined for 204). */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** A multipart/form-data request (legacy firmware uploads); the body streams from its file blobs. */
  requestForm<T = unknown>(method: string, path: string, form: FormData, options?: Omit<RequestOptions, 'body'>): Promise<T>;
  /** The bare transport, for presigned URLs (which must not carry the API key). */
  readonly fetch: FetchLike;
  /** The headers every API call carries (the key), for calls made with `fetch` (event streams). */
  readonly headers: Readonly<Record<string, string>>;
}

export function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function authHeaders(options: CanopyClientOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.apiVersion) headers['x-api-version'] = String(options.apiVersion);
  return headers;
}

function networkError(error: unknown, method: string, url: string): CanopyNetworkError {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
  return new CanopyNetworkError(`${method} ${url} failed: ${detail}`, { cause: error });
}

export function createCanopyClient(options: CanopyClientOptions): CanopyClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transport: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers = authHeaders(options);

  const api = createClient<AdminPaths>({ baseUrl, headers, fetch: transport as never });
  const throwOnError: Middleware = {
    async onResponse({ request, response }) {
      if (response.ok) return undefined;
      const body = await readBody(response.clone());
      throw CanopyApiError.fromBody(response.status, body, request.method, new URL(request.url).pathname);
    },
    onError({ request, error }) {
      if (error instanceof CanopyApiError) return error;
      return networkError(error, request.method, request.url);
    },
  };
  api.use(throwOnError);

  async function request<T>(method: string, path: string, opts: RequestOptions & { form?: FormData } = {}): Promise<T> {
    const url = `${baseUrl}${path}${queryString(opts.query)}`;
    const init: RequestInit = { method, headers: { ...headers, ...opts.headers }, signal: opts.signal };
    if (opts.form !== undefined) {
      // fetch writes the multipart boundary into content-type itself.
      init.body = opts.form;
    } else if (opts.body !== undefined) {
      init.body = JSON.stringify(opts.body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await transport(url, init);
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      throw networkError(error, method, url);
    }
    const body = await readBody(response);
    if (!response.ok) throw CanopyApiError.fromBody(response.status, body, method, path);
    return body as T;
  }

  const requestForm = <T>(method: string, path: string, form: FormData, opts: Omit<RequestOptions, 'body'> = {}) => request<T>(method, path, { ...opts, form });
  return { baseUrl, api, request, requestForm, fetch: transport, headers };
}

/** Puts a prn (or any id) into a path template: `/artifacts/{prn}`. */
export function fillPath(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}
