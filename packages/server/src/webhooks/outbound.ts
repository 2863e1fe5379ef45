/**
 * The one way the server sends a webhook request. It resolves the host itself before every
 * request, refuses addresses the policy forbids, and connects to exactly the address it checked
 * (the connection is opened to that IP, with the name only as TLS server name and Host header, so
 * nothing re-resolves between check and connect, and a kept-alive connection is reused only for
 * the same checked address: connection-pool.ts). It follows no redirects (a 3xx is just a
 * non-200), gives up after the timeout, and reads at most 64 KiB of an answer.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { judgeAddress } from './address-policy';
import { DEFAULT_POOL_LIMITS, ReceiverConnections, type PoolLimits } from './connection-pool';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface OutboundOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** PEM files of extra trust anchors (test receivers, private CAs). */
  caFiles: string[];
  /** Keep-alive bounds; DEFAULT_POOL_LIMITS when absent. */
  pool?: Partial<PoolLimits>;
  /** Answers a host name's addresses; the system resolver (dns.lookup) when absent. Tests stage DNS changes with it. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

/**
 * Why an attempt failed; `failureKind` folds it into the contract's three failures. A host that
 * does not resolve and one that resolves only to refused addresses are one error, worded alike
 * and naming no address, so the answers cannot be used to map internal DNS (and a refused address
 * is never connected to, so nothing tells its ports apart). Failures at an allowed address keep
 * their detail: that is what debugging a public receiver needs.
 */
export type AttemptError =
  | 'address_not_allowed'
  | 'response_timeout'
  | 'connection_failed'
  | 'tls_failed'
  | 'response_too_large'
  | 'response_status';

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: AttemptError | null;
  detail: string | null;
}

export type RequestFailure = 'host_resolution_failed' | 'response_timeout' | 'response_status';

/** `webhook.request_failed` knows three failures; a refused address is reported as unresolvable, a broken connection by its (absent) status. */
export function failureKind(error: AttemptError | null): RequestFailure {
  if (error === 'address_not_allowed') return 'host_resolution_failed';
  if (error === 'response_timeout') return 'response_timeout';
  return 'response_status';
}

export interface WebhookSender {
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult>;
  close(): void;
}

class AttemptFailure extends Error {
  constructor(
    readonly kind: AttemptError,
    detail: string,
    readonly status: number | null = null,
  ) {
    super(detail);
  }
}

/**
 * One post's timeout state. Destroying the request on timeout, rather than giving each request an
 * AbortSignal, spares the per-request listener bookkeeping a signal costs.
 */
interface Attempt {
  timedOut: boolean;
  request: http.ClientRequest | null;
  timeout(): AttemptFailure;
}

/** The one detail of `address_not_allowed`, whatever the resolver said or which addresses it answered. */
export const ADDRESS_NOT_ALLOWED_DETAIL = 'the host has no address webhooks may be delivered to (it does not resolve, or only to addresses that are not allowed)';

const systemResolve = (hostname: string) => dns.lookup(hostname, { all: true, verbatim: true });

async function resolveAllowed(host: string, allowPrivate: boolean, resolve: (hostname: string) => Promise<LookupAddress[]>): Promise<LookupAddress> {
  let addresses: LookupAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
  }
  const allowed = addresses.find((a) => judgeAddress(a.address, allowPrivate) === 'allowed');
  if (!allowed) throw new AttemptFailure('address_not_allowed', ADDRESS_NOT_ALLOWED_DETAIL);
  return allowed;
}

function classifyNetworkError(error: NodeJS.ErrnoException): AttemptFailure {
  const code = error.code ?? '';
  if (code.startsWith('ERR_TLS') || /CERT|SSL|SELF_SIGNED|UNABLE_TO/.test(code)) return new AttemptFailure('tls_failed', `${code}: ${error.message}`);
  return new AttemptFailure('connection_failed', `${code || 'error'}: ${error.message}`);
}

/**
 * One TLS context for every connection, built once. Handing `ca` to each request instead would
 * parse every root certificate again per connection, and the agent folds `ca` into the key it
 * computes for every request, which made that key a string of the whole trust store.
 */
function trustContext(caFiles: string[]): tls.SecureContext | undefined {
  if (caFiles.length === 0) return undefined;
  // Passing `ca` replaces Node's roots, so keep them and add the extra anchors.
  return tls.createSecureContext({ ca: [...tls.rootCertificates, ...caFiles.map((file) => fs.readFileSync(file, 'utf8'))] });
}

/**
 * Requests that start while a lookup of their name is in flight share its answer instead of each
 * asking the resolver (a claimed batch to one receiver starts together). Nothing outlives the
 * lookup: once it has answered, the next request asks again, so every request still connects to
 * an address resolved after it began and checked for it (resolveAllowed).
 */
function sharingLookupsInFlight(resolve: (hostname: string) => Promise<LookupAddress[]>): (hostname: string) => Promise<LookupAddress[]> {
  const inFlight = new Map<string, Promise<LookupAddress[]>>();
  return (hostname) => {
    let lookup = inFlight.get(hostname);
    if (!lookup) {
      lookup = resolve(hostname).finally(() => inFlight.delete(hostname));
      inFlight.set(hostname, lookup);
    }
    return lookup;
  };
}

export function createWebhookSender(options: OutboundOptions): WebhookSender {
  const connections = new ReceiverConnections({ ...DEFAULT_POOL_LIMITS, ...options.pool }, trustContext(options.caFiles));
  const resolveHost = sharingLookupsInFlight(options.resolve ?? systemResolve);

  async function exchange(url: URL, body: string, headers: Record<string, string>, attempt: Attempt): Promise<number> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const target = await resolveAllowed(host, options.allowPrivate, resolveHost);
    if (attempt.timedOut) throw attempt.timeout();
    const port = Number(url.port || 443);
    const pooled = connections.acquire(`${host} ${target.address} ${port}`);
    try {
      return await new Promise<number>((resolve, reject) => {
        const request = https.request(
          {
            method: 'POST',
            // The checked address itself, so the socket cannot go anywhere else; the name is what
            // the certificate is verified against (an IP literal has no SNI and is checked as an IP).
            host: target.address,
            port,
            path: `${url.pathname}${url.search}`,
            servername: isIP(host) ? '' : host,
            agent: pooled.agent,
            headers: { host: url.host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), 'user-agent': 'Canopy-Webhooks/1', ...headers },
          },
          (response) => {
            let received = 0;
            response.on('data', (chunk: Buffer) => {
              received += chunk.length;
              if (received > MAX_RESPONSE_BYTES) {
                response.destroy();
                reject(new AttemptFailure('response_too_large', `response body over ${MAX_RESPONSE_BYTES} bytes`, response.statusCode ?? null));
              }
            });
            response.on('end', () => resolve(response.statusCode ?? 0));
            // Closed before its end (destroyed on timeout, connection cut): settle rather than hang.
            response.on('close', () => {
              if (!response.complete) reject(attempt.timedOut ? attempt.timeout() : new AttemptFailure('connection_failed', 'connection closed before the answer was complete', response.statusCode ?? null));
            });
            response.on('error', (error) => reject(classifyNetworkError(error)));
          },
        );
        request.on('error', (error) => reject(attempt.timedOut ? attempt.timeout() : classifyNetworkError(error)));
        attempt.request = request;
        request.end(body);
      });
    } finally {
      pooled.release();
    }
  }

  return {
    async post(rawUrl, body, headers) {
      const started = performance.now();
      const attempt: Attempt = { timedOut: false, request: null, timeout: () => new AttemptFailure('response_timeout', `no answer within ${options.timeoutMs} ms`) };
      let timer: NodeJS.Timeout | undefined;
      // A race rather than only destroying the request: a hanging DNS lookup cannot be cut short
      // (once it answers, `exchange` sees the timeout and sends nothing).
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          attempt.timedOut = true;
          attempt.request?.destroy();
          reject(attempt.timeout());
        }, options.timeoutMs);
      });
      const finish = (partial: Omit<AttemptResult, 'latencyMs'>): AttemptResult => ({ ...partial, latencyMs: Math.round(performance.now() - started) });
      try {
        const url = new URL(rawUrl);
        if (url.protocol !== 'https:') throw new AttemptFailure('connection_failed', 'only https:// urls are delivered to');
        const sending = exchange(url, body, headers, attempt);
        sending.catch(() => {}); // after a timeout its late rejection has no one to tell
        const status = await Promise.race([sending, deadline]);
        return finish(status === 200 ? { ok: true, status, error: null, detail: null } : { ok: false, status, error: 'response_status', detail: `answered ${status}` });
      } catch (error) {
        const failure = error instanceof AttemptFailure ? error : classifyNetworkError(error as NodeJS.ErrnoException);
        return finish({ ok: false, status: failure.status, error: failure.kind, detail: failure.message.slice(0, 500) });
      } finally {
        clearTimeout(timer);
        deadline.catch(() => {});
      }
    },
    close() {
      connections.close();
    },
  };
}
