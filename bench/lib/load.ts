/**
 * HTTP load with autocannon: requests/s and latency percentiles for one URL (or a rotating set),
 * from a fixed number of connections for a fixed time. Bounded and loopback-only.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  /** Responses received in the whole run. */
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /**
   * The 99th percentile of this process's own event-loop delay during the run, in ms: a response
   * that arrives while the load generator is busy waits, and autocannon counts that wait in the
   * server's latency. It tells the client's share of a p99 from the server's.
   */
  generatorDelayP99: number;
}

export interface LoadOptions {
  url: string;
  /** When given, each request picks the next path in turn. */
  paths?: string[];
  connections?: number;
  seconds?: number;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const paths = options.paths;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 64,
    duration: options.seconds ?? 10,
    headers: options.headers,
    method: options.method ?? 'GET',
    body: options.body,
    requests: paths
      ? [
          {
            setupRequest: (request: any) => {
              request.path = paths[next++ % paths.length];
              return request;
            },
          },
        ]
      : undefined,
  });
  delay.disable();
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    generatorDelayP99: delay.percentile(99) / 1e6,
  };
}

/** What a ratio line reads of a load: any load generator's result (autocannon's or lib/mtls-load.ts's). */
type RatioInput = Pick<LoadResult, 'requestsPerSecond' | 'p99' | 'non2xx' | 'errors'>;

export function formatRatio(name: string, measured: RatioInput, baseline: RatioInput, target: number): string {
  const ratio = measured.requestsPerSecond / baseline.requestsPerSecond;
  return (
    `${name.padEnd(28)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${String(measured.p99).padStart(4)} ms` +
    `  | baseline ${baseline.requestsPerSecond.toFixed(0)} req/s  ratio ${(ratio * 100).toFixed(1)}% (target >= ${(target * 100).toFixed(0)}%)` +
    `${measured.non2xx || measured.errors ? `  !! non-2xx ${measured.non2xx}, errors ${measured.errors}` : ''}`
  );
}
