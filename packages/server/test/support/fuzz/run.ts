/**
 * Runs generated requests against a live server, a few in flight at once, and collects every
 * answer that breaks the contract. Requests are drawn with fc.sample from a fixed seed (printed,
 * overridable with FUZZ_SEED), so a failure is replayed by running the file again with that seed.
 * fc.assert's shrinking is not used: it would replay thousands of HTTP requests one at a time,
 * and the failure line already shows the request.
 */
import fc from 'fast-check';
import type http from 'node:http';
import { contractBreach, describe } from './checks';
import type { Operation } from './operations';
import { requestFor, send, type FuzzRequest, type RequestOptions } from './requests';
import type { ValueContext } from './schema-arbitrary';

export interface FuzzTarget {
  baseUrl: string;
  agent: http.Agent;
}

export interface FuzzReport {
  requests: number;
  byStatus: Map<number, number>;
  breaches: string[];
}

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261126);

export async function fuzzOperations(
  target: FuzzTarget,
  operations: Operation[],
  context: ValueContext,
  perOperation: number,
  options: RequestOptions & { concurrency?: number } = {},
): Promise<FuzzReport> {
  const report: FuzzReport = { requests: 0, byStatus: new Map(), breaches: [] };
  for (const [index, operation] of operations.entries()) {
    const requests = fc.sample(requestFor(operation, context, options), { numRuns: perOperation, seed: FUZZ_SEED + index });
    await inParallel(requests, options.concurrency ?? 6, async (request) => {
      const response = await send(target.baseUrl, target.agent, request).catch((error: Error) => ({ status: 599, contentType: '', text: `transport: ${error.message}` }));
      report.requests += 1;
      report.byStatus.set(response.status, (report.byStatus.get(response.status) ?? 0) + 1);
      const breach = contractBreach(response, operation.documented5xx);
      if (breach && report.breaches.length < 50) report.breaches.push(`[${operation.method} ${operation.path}] ${describe(request, response, breach)}`);
    });
  }
  return report;
}

export async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(workers);
}

export type { FuzzRequest };
