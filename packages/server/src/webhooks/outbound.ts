/**
 * The one way the server sends a webhook request. It resolves the host itself, refuses
 * addresses the policy forbids, and connects to exactly the address it checked (a `lookup`
 * override, so nothing re-resolves between check and connect). It follows no redirects (a 3xx is
 * just a non-200), gives up after the timeout, and reads at most 64 KiB of an answer.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import fs from 'node:fs';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { judgeAddress } from './address-policy';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface OutboundOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** PEM files of extra trust anchors (test receivers, private CAs). */
  caFiles: string[];
}

/** Why an attempt failed, precisely; `failureKind` folds it into the contract's three failures. */
export type AttemptError =
  | 'host_resolution_failed'
  | 'forbidden_address'
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
  if (error === 'host_resolution_failed' || error === 'forbidden_address') return 'host_resolution_failed';
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

async function resolveAllowed(hostname: string, allowPrivate: boolean): Promise<LookupAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new AttemptFailure('host_resolution_failed', `${host}: ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}`);
    }
  }
  const allowed = addresses.find((a) => judgeAddress(a.address, allowPrivate) === 'allowed');
  if (!allowed) {
    const verdicts = addresses.map((a) => `${a.address} (${judgeAddress(a.address, allowPrivate)})`).join(', ');
    throw new AttemptFailure('forbidden_address', `${host} resolves only to refused addresses: ${verdicts || 'none'}`);
  }
  return allowed;
}

function pinnedLookup(target: LookupAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

function classifyNetworkError(error: NodeJS.ErrnoException): AttemptFailure {
  const code = error.code ?? '';
  if (code.startsWith('ERR_TLS') || /CERT|SSL|SELF_SIGNED|UNABLE_TO/.test(code)) return new AttemptFailure('tls_failed', `${code}: ${error.message}`);
  return new AttemptFailure('connection_failed', `${code || 'error'}: ${error.message}`);
}

function loadTrustAnchors(caFiles: string[]): string[] | undefined {
  if (caFiles.length === 0) return undefined;
  // Passing `ca` replaces Node's roots, so keep them and add the extra anchors.
  return [...tls.rootCertificates, ...caFiles.map((file) => fs.readFileSync(file, 'utf8'))];
}

export function createWebhookSender(options: OutboundOptions): WebhookSender {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: loadTrustAnchors(options.caFiles) });

  async function exchange(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<number> {
    const target = await resolveAllowed(url.hostname, options.allowPrivate);
    return new Promise<number>((resolve, reject) => {
      const request = https.request(
        url,
        {
          method: 'POST',
          agent,
          lookup: pinnedLookup(target),
          signal,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), 'user-agent': 'Canopy-Webhooks/1', ...headers },
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
          response.on('error', (error) => reject(classifyNetworkError(error)));
        },
      );
      request.on('error', (error) => reject(signal.aborted ? new AttemptFailure('response_timeout', `no answer within ${options.timeoutMs} ms`) : classifyNetworkError(error)));
      request.end(body);
    });
  }

  return {
    async post(rawUrl, body, headers) {
      const started = performance.now();
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      // A race rather than only the signal: a hanging DNS lookup cannot be aborted.
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new AttemptFailure('response_timeout', `no answer within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
      });
      const finish = (partial: Omit<AttemptResult, 'latencyMs'>): AttemptResult => ({ ...partial, latencyMs: Math.round(performance.now() - started) });
      try {
        const url = new URL(rawUrl);
        if (url.protocol !== 'https:') throw new AttemptFailure('connection_failed', 'only https:// urls are delivered to');
        const sending = exchange(url, body, headers, controller.signal);
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
      agent.destroy();
    },
  };
}
