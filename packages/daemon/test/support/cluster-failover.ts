/**
 * Two Canopy server processes on one PostgreSQL database and one S3-protocol store (s3rver),
 * behind round-robin TCP proxies (round-robin-proxy.ts: the device API's mutual TLS passes
 * through untouched), with the fleet simulator and admin traffic; one process is killed with
 * SIGKILL in the middle of a phased release. Shared by the CI test
 * (test/cluster-failover.test.ts) and the 1,000-device benchmark (bench/cluster.ts), which both
 * judge the outcome this answers.
 *
 * The run: the fleet enrols (JITP) through the proxies; a webhook subscribed to
 * `device.release_changed` points at a real local HTTPS receiver; an admin client creates
 * products through the admin proxy the whole time; optionally a first release at 100% with both
 * processes up (the baseline the benchmark compares against), and one capped at `cap` devices
 * updating at once, its places sampled from the database. Then a release phased to `share`
 * of the cohort: once a third of the phase runs it, process 2 is killed. Once the phase
 * converges the fleet keeps checking for two more poll intervals (a device claimed past the
 * phase's size would install in that time), the phase's claims are counted, and the release is
 * opened to everyone; every device must then run it.
 */
import pg from 'pg';
import { startReceiver } from '../../../server/test/support/webhook-receiver';
import type { AdminApi } from '../../src/simulator/fleet-setup';
import { startFleet } from '../../src/simulator/simulate';
import type { DaemonState } from '../../src/update/state';
import { startCluster, withClusterDatabase } from './two-process-cluster';

export interface FailoverOptions {
  /** A PostgreSQL server (the scenario creates its own database on it and drops it after). */
  databaseUrl: string;
  devices: number;
  pollSeconds: number;
  /** The phased release's share of the cohort, in (0, 1). */
  share: number;
  /** First publish a release at 100% with both processes up, and time it (the baseline). */
  baseline?: boolean;
  /** First publish a release at 100% capped at this many devices updating at once, both processes up, the places sampled. */
  cap?: number;
  timeoutSeconds: number;
  write: (line: string) => void;
}

export interface FailoverOutcome {
  devices: number;
  enrollSeconds: number;
  baselineSeconds: number | null;
  /** The capped release (options.cap): the most places held in any sample, the samples, seconds to converge. */
  capped: { maxHeld: number; samples: number; seconds: number | null; running: number } | null;
  /** Devices the phase allows, and what the server and the fleet show once it converged. */
  phaseSize: number;
  phaseSeconds: number | null;
  runningAfterPhase: number;
  phaseClaimCount: number;
  claimEvents: number;
  claimants: number;
  /** When process 2 died: seconds after the phased release began (its binary's upload and hashing included), devices on it then. */
  killedAfterSeconds: number;
  runningAtKill: number;
  /** Seconds from opening the phase to every device running the release (null: not all did). */
  allSeconds: number | null;
  runningAtEnd: number;
  /** `device.release_changed` events recorded, and those the receiver never got. */
  releaseChangedEvents: number;
  undelivered: string[];
  deliveries: number;
  /** Admin writes answered 201, and those missing or listed twice afterwards. */
  answeredWrites: number;
  /** Requests cut off by the kill (no answer), and answers that were errors (none expected). */
  failedWrites: number;
  errorAnswers: string[];
  lostWrites: string[];
  duplicatedWrites: string[];
  /** Connections each proxy handed to process 1 and process 2. */
  adminConnections: number[];
  deviceConnections: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A release capped at `cap` through both processes, with the places held sampled from the database every few ms. */
async function cappedRelease(
  databaseUrl: string,
  cap: number,
  timeoutSeconds: number,
  fleet: { release(options: { timeoutSeconds: number; fields?: Record<string, unknown> }): Promise<{ releasePrn: string; convergeSeconds: number | null }> },
  earlier: string[],
  running: (releasePrn: string | null) => number,
): Promise<NonNullable<FailoverOutcome['capped']>> {
  const sampler = new pg.Client({ connectionString: databaseUrl });
  await sampler.connect();
  let sampling = true;
  let maxHeld = 0;
  let samples = 0;
  const sampled = (async () => {
    while (sampling) {
      const { rows } = await sampler.query<{ n: number }>('select count(*)::int as n from update_slots where expires_at > now()');
      maxHeld = Math.max(maxHeld, rows[0].n);
      samples++;
      await sleep(10);
    }
  })();
  try {
    const outcome = await fleet.release({ timeoutSeconds, fields: { max_concurrent: cap, slot_timeout_seconds: 600 } });
    earlier.push(outcome.releasePrn);
    return { maxHeld, samples, seconds: outcome.convergeSeconds, running: running(outcome.releasePrn) };
  } finally {
    sampling = false;
    await sampled;
    await sampler.end();
  }
}

async function until(done: () => boolean | Promise<boolean>, seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await done())) {
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
  return true;
}

/** Every item of a paged admin list. */
async function all(api: AdminApi, url: string, field: string): Promise<any[]> {
  const items: any[] = [];
  let page: string | null = null;
  do {
    const body: any = await api('GET', `${url}${url.includes('?') ? '&' : '?'}limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
    items.push(...body[field]);
    page = body.next_page;
  } while (page);
  return items;
}


export function runClusterFailover(options: FailoverOptions): Promise<FailoverOutcome> {
  return withClusterDatabase(options.databaseUrl, (databaseUrl) => failover(databaseUrl, options));
}

async function failover(databaseUrl: string, options: FailoverOptions): Promise<FailoverOutcome> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  try {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const { servers, adminProxy, deviceProxy, api, adminUrl, deviceUrl, apiKey, serverCaPem, workDir } = await startCluster(databaseUrl, cleanups, {
      CANOPY_WEBHOOK_ALLOW_PRIVATE: '1',
      CANOPY_WEBHOOK_CA_FILE: receiver.caFile,
      // A delivery leased by the killed process is retaken once its lease runs out.
      CANOPY_WEBHOOK_LEASE_SECONDS: '10',
      CANOPY_WEBHOOK_TIMEOUT_MS: '5000',
      CANOPY_WEBHOOK_RETRY_BASE_MS: '200',
    });

    await api('POST', '/webhooks', { url: receiver.url, enabled_events: ['device.release_changed'] });

    const states: (DaemonState | null)[] = Array.from({ length: options.devices }, () => null);
    const fleet = await startFleet({
      adminUrl,
      apiKey,
      deviceUrl,
      serverCaPem,
      devices: options.devices,
      pollSeconds: options.pollSeconds,
      jitterSeconds: 1,
      binarySize: 1024,
      workDir,
      write: options.write,
      onTransition: (index, state) => {
        states[index] = state;
      },
    });
    cleanups.push(() => fleet.stop());
    const running = (releasePrn: string | null, exceptPrns: string[] = []) =>
      states.filter((s) => s?.phase.name === 'idle' && s.running.release_prn !== null && (releasePrn ? s.running.release_prn === releasePrn : !exceptPrns.includes(s.running.release_prn))).length;

    // Admin traffic through the admin proxy for the whole run: writes that must all survive.
    const answered: string[] = [];
    let failedWrites = 0;
    const errorAnswers: string[] = [];
    let stopAdmin = false;
    const adminTraffic = (async () => {
      for (let i = 0; !stopAdmin; i++) {
        const name = `cluster-${Date.now().toString(36)}-${i}`;
        try {
          await api('POST', '/products', { name });
          answered.push(name);
          await api('GET', '/releases?limit=10');
        } catch (error) {
          // A request on a connection to the killed process is never answered (so its write may
          // or may not be there); an answer that is an error is a failure of the cluster.
          if (/ answered \d+/.test((error as Error).message)) errorAnswers.push((error as Error).message);
          else failedWrites++;
        }
        await sleep(100);
      }
    })();

    let baselineSeconds: number | null = null;
    const earlier: string[] = [];
    let capped: FailoverOutcome['capped'] = null;
    if (options.cap) capped = await cappedRelease(databaseUrl, options.cap, options.timeoutSeconds, fleet, earlier, running);
    if (options.baseline) {
      const outcome = await fleet.release({ timeoutSeconds: options.timeoutSeconds });
      baselineSeconds = outcome.convergeSeconds;
      earlier.push(outcome.releasePrn);
    }

    // The phased release; process 2 dies once a third of the phase runs it.
    const phaseSize = Math.ceil(options.share * options.devices);
    const published = Date.now();
    let killedAfterSeconds = -1;
    let runningAtKill = -1;
    const killer = until(() => running(null, earlier) >= Math.ceil(phaseSize / 3), options.timeoutSeconds).then(async () => {
      runningAtKill = running(null, earlier);
      killedAfterSeconds = (Date.now() - published) / 1000;
      await servers[1].kill('SIGKILL');
      options.write(`process 2 killed (SIGKILL) ${killedAfterSeconds.toFixed(1)} s after the release began (upload and hashing included), ${runningAtKill} devices running it`);
    });
    const phased = await fleet.release({ phases: [options.share], timeoutSeconds: options.timeoutSeconds });
    await killer;
    const releasePrn = phased.releasePrn;

    // Two more poll intervals: a device claimed past the phase's size would install meanwhile.
    await sleep((2 * options.pollSeconds + 2) * 1000);
    const runningAfterPhase = running(releasePrn);
    const phaseClaimCount = (await api('GET', `/releases/${releasePrn}`)).release.phase_claim_count as number;
    const claims = (await all(api, '/events?type=device&subtype=claimed_release&order=asc', 'events')).filter((e) => JSON.stringify(e.data).includes(releasePrn));
    const claimants = new Set(claims.map((e) => e.resource_prn)).size;

    const opened = Date.now();
    await api('PATCH', `/releases/${releasePrn}`, { phase_value: 1 });
    options.write('release opened to the whole cohort');
    const converged = await until(() => running(releasePrn) === options.devices, options.timeoutSeconds);
    const allSeconds = converged ? (Date.now() - opened) / 1000 : null;
    options.write(converged ? `every device runs the release ${allSeconds!.toFixed(1)} s after the phase was opened` : `not converged: ${running(releasePrn)} of ${options.devices}`);

    // Every device's next check tells the server its new release: one release_changed each.
    const releaseChanged = async () => (await all(api, '/events?type=device&subtype=release_changed&order=asc', 'events')).filter((e) => JSON.stringify(e.data).includes(releasePrn));
    await until(async () => (await releaseChanged()).length >= options.devices, 4 * options.pollSeconds + 30);
    const events = await all(api, '/events?type=device&subtype=release_changed&order=asc', 'events');
    const delivered = () => new Set(receiver.requests.map((r) => r.body?.prn));
    await until(() => events.every((e) => delivered().has(e.prn)), 60);
    const undelivered = events.filter((e) => !delivered().has(e.prn)).map((e) => e.prn as string);

    stopAdmin = true;
    await adminTraffic;
    const names = (await all(api, '/products', 'products')).map((p) => p.name as string);
    const counted = new Map<string, number>();
    for (const name of names) counted.set(name, (counted.get(name) ?? 0) + 1);

    return {
      devices: options.devices,
      enrollSeconds: fleet.enrollSeconds,
      baselineSeconds,
      capped,
      phaseSize,
      phaseSeconds: phased.convergeSeconds,
      runningAfterPhase,
      phaseClaimCount,
      claimEvents: claims.length,
      claimants,
      killedAfterSeconds,
      runningAtKill,
      allSeconds,
      runningAtEnd: running(releasePrn),
      releaseChangedEvents: events.length,
      undelivered,
      deliveries: receiver.requests.length,
      answeredWrites: answered.length,
      failedWrites,
      errorAnswers,
      lostWrites: answered.filter((name) => !counted.has(name)),
      duplicatedWrites: [...counted].filter(([, n]) => n > 1).map(([name]) => name),
      adminConnections: [...adminProxy.connections],
      deviceConnections: [...deviceProxy.connections],
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
