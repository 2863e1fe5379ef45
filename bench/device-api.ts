/**
 * GET /update over mutual TLS, kept alive, from 64 connections (64 of 10,000 registered devices,
 * PostgreSQL), beside an HTTPS hello-world that also requires client certificates and the floor
 * of an update check (lib/update-check-floor.ts), in turned order each round; the median round's
 * ratio and the p99 over all rounds are held to the targets. Then new handshakes per second (full
 * TLS, one request each) on Canopy, the hello-world and the floor, with each side's CPU per
 * handshake and the server-only rate it implies on 2 cores. The client is raw TLS (lib/raw-http.ts).
 * Targets: >= 30% of the hello-world rate, p99 < 25 ms, >= 500 handshakes/s on 2 cores.
 * Env: BENCH_ROUNDS (7), BENCH_ROUND_SECONDS (5), BENCH_SKIP_KEEPALIVE=1, BENCH_SKIP_HANDSHAKES=1,
 * BENCH_MARK=<file> (written, naming the load, as each Canopy load starts: for `perf record -a`).
 */
import fs from 'node:fs';
import os from 'node:os';
import { startCanopy } from './lib/canopy';
import { startBareServer, type BareServer } from './lib/bare-server';
import { makeDeviceCa, makeDevices } from './lib/device-certificates';
import { enrollFleet } from './lib/fleet-enrollment';
import { loadAverage, serverCpuClock } from './lib/cpu-time';
import { formatHandshakes, handshakeLoad, impliedCapacity, TARGET_CORES, type HandshakeLoadOptions, type HandshakeLoadResult } from './lib/handshake-load';
import { formatRatio } from './lib/load';
import { mtlsLoad, percentile, type MtlsClient, type MtlsLoadResult } from './lib/mtls-load';
import { committedTransactions, withClient, withDatabase } from './lib/postgres';
import { WARM_UP_SECONDS } from './lib/warm-up';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 64;
const HANDSHAKE_CONCURRENCY = 16;
/** Client threads for the handshake test: one thread's TLS work alone can cap the figure. */
const HANDSHAKE_THREADS = Number(process.env.BENCH_HANDSHAKE_THREADS ?? 2);
const SKIP_KEEPALIVE = process.env.BENCH_SKIP_KEEPALIVE === '1';
/** Keep-alive rounds, each a load of the hello-world's and one of Canopy's (keepAliveRounds), and their length. */
const KEEPALIVE_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
const SKIP_HANDSHAKES = process.env.BENCH_SKIP_HANDSHAKES === '1';
/** Devices that connect in the handshake test, one new connection each in turn. */
const HANDSHAKE_DEVICES = 256;

/** Tells a profiler waiting on BENCH_MARK that the measured `load` starts now. */
function markLoad(load: string): void {
  if (process.env.BENCH_MARK) fs.writeFileSync(process.env.BENCH_MARK, load);
}

/** PostgreSQL's committed transactions in the database so far, read-only ones included. */
function commitCount(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, committedTransactions);
}

/**
 * CPU per request of the server process and (with a database) of its PostgreSQL backends over
 * `run`: comparable between runs where the rates and p99 move with the neighbours' load.
 */
async function withCpuPerRequest<T extends MtlsLoadResult>(serverPid: number | undefined, databaseUrl: string | null, seconds: number, run: () => Promise<T>): Promise<T & { cpu: string }> {
  const clock = await serverCpuClock(serverPid, databaseUrl);
  const result = await run();
  const { serverMs, databaseMs } = await clock.stop(result.requestsPerSecond * seconds);
  const parts = [serverMs === null ? null : `server ${serverMs.toFixed(3)} ms`, databaseMs === null ? null : `PostgreSQL ${databaseMs.toFixed(3)} ms`];
  return { ...result, cpu: `CPU per request: ${parts.filter(Boolean).join(', ')}` };
}

/** The load `run`, with PostgreSQL's transactions per request over it (pg_stat lags about half a second). */
async function withCommitsPerRequest<T extends { requestsPerSecond: number }>(databaseUrl: string, seconds: number, run: () => Promise<T>): Promise<T & { commitsPerRequest: number }> {
  const before = await commitCount(databaseUrl);
  const result = await run();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { ...result, commitsPerRequest: ((await commitCount(databaseUrl)) - before) / Math.max(1, result.requestsPerSecond * seconds) };
}


/** One round of the keep-alive comparison: the hello-world's, Canopy's and the floor's loads, back to back. */
interface KeepAliveRound {
  hello: MtlsLoadResult & { cpu: string };
  canopy: MtlsLoadResult & { cpu: string; commitsPerRequest: number };
  floor: MtlsLoadResult & { cpu: string };
  /** Canopy's rate over the hello-world's. */
  ratio: number;
}

type RoundLoads = { [K in 'hello' | 'canopy' | 'floor']: () => Promise<KeepAliveRound[K]> };
const ROUND_ORDER = ['hello', 'canopy', 'floor'] as const;

/**
 * KEEPALIVE_ROUNDS rounds, each the hello-world's, Canopy's and the floor's loads: this machine's
 * speed drifts by a third within minutes, and at times by half within seconds, so a baseline
 * measured a minute before (or after) the load it divides can be off by that much either way.
 * Alternated, each ratio divides loads made within the same quarter of a minute; round i starts
 * with the i-th load, so over three rounds each load takes each place once and a machine speeding
 * up or slowing down favours none; and many short rounds leave the median to the rounds the
 * machine held steady through.
 */
async function keepAliveRounds(loads: RoundLoads): Promise<KeepAliveRound[]> {
  const rounds: KeepAliveRound[] = [];
  for (let i = 0; i < KEEPALIVE_ROUNDS; i++) {
    const round: Partial<KeepAliveRound> = {};
    for (let j = 0; j < ROUND_ORDER.length; j++) {
      const name = ROUND_ORDER[(i + j) % ROUND_ORDER.length];
      Object.assign(round, { [name]: await loads[name]() });
    }
    const { hello, canopy, floor } = round as Omit<KeepAliveRound, 'ratio'>;
    rounds.push({ hello, canopy, floor, ratio: rateShare(canopy, hello) });
  }
  return rounds;
}

/** `measured`'s rate over `baseline`'s. */
function rateShare(measured: { requestsPerSecond: number }, baseline: { requestsPerSecond: number }): number {
  return measured.requestsPerSecond / Math.max(1, baseline.requestsPerSecond);
}

/** The item with the median `value` (of an even number, the lower of the two middle ones). */
function lowerMedian<T>(items: readonly T[], value: (item: T) => number): T {
  const sorted = [...items].sort((a, b) => value(a) - value(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The round with the median ratio. */
const medianRound = (rounds: KeepAliveRound[]) => lowerMedian(rounds, (round) => round.ratio);

/** Every round, then the figures the targets are about: the median round's ratio and the worst round's p99. */
function printKeepAlive(rounds: KeepAliveRound[]): void {
  console.log(`keep-alive: ${rounds.length} rounds of ${ROUND_SECONDS} s of each load (hello-world, Canopy, floor), their order turned every round`);
  const ofFloor = (round: KeepAliveRound) => rateShare(round.canopy, round.floor);
  rounds.forEach((round, i) =>
    console.log(formatRatio(`  round ${i + 1}`, round.canopy, round.hello, 0.3), `| floor ${round.floor.requestsPerSecond.toFixed(0)} req/s, Canopy ${percent(ofFloor(round))} of it`),
  );
  const median = medianRound(rounds);
  // p99 over every check of every round, as one run of the load would measure it; the worst round's beside it.
  const allLatencies = rounds.flatMap((round) => round.canopy.latencies).sort((a, b) => a - b);
  const worstP99 = Math.max(...rounds.map((round) => round.canopy.p99));
  console.log(
    `GET /update (keep-alive): median ratio ${(median.ratio * 100).toFixed(1)}% (target >= 30%), p99 of all rounds ${percentile(allLatencies, 0.99)} ms (target < 25 ms; worst round's ${worstP99} ms)`,
  );
  console.log(`  median round: ${median.canopy.cpu}; hello-world's ${median.hello.cpu.replace('CPU per request: ', '')}`);
  // The tail beside the middle, for both: the share of p99 the machine's neighbours make.
  console.log(`  median round: p50/p99 Canopy ${median.canopy.p50}/${median.canopy.p99} ms, hello-world ${median.hello.p50}/${median.hello.p99} ms`);
  console.log(`  median round: PostgreSQL transactions per check (grouped statements, read-only ones included): ${median.canopy.commitsPerRequest.toFixed(3)}`);
  const floorLatencies = rounds.flatMap((round) => round.floor.latencies).sort((a, b) => a - b);
  console.log(
    `floor (device + event only), same rounds: median ${percent(medianOf(rounds.map((round) => rateShare(round.floor, round.hello))))} of the hello-world, ` +
      `Canopy at a median ${percent(medianOf(rounds.map(ofFloor)))} of the floor; floor's p99 of all rounds ${percentile(floorLatencies, 0.99)} ms`,
  );
  console.log(`  median round: floor's ${median.floor.cpu}`);
}

const medianOf = (values: number[]) => lowerMedian(values, (value) => value);

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

await withDatabase(async (databaseUrl) => {
  const started = Date.now();
  const deviceCa = await makeDeviceCa();
  const devices = await makeDevices(deviceCa, DEVICES, CONNECTIONS + HANDSHAKE_DEVICES);
  console.log(`made ${CONNECTIONS + HANDSHAKE_DEVICES} device certificates in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const withCertificates = devices.slice(-(CONNECTIONS + HANDSHAKE_DEVICES)).map((d) => ({ certPem: d.certPem, keyPem: d.keyPem }));
  const clients = withCertificates.slice(0, CONNECTIONS);
  const handshakeClients = withCertificates.slice(CONNECTIONS);

  const hello = await startBareServer('bench/lib/https-hello-world.ts', deviceCa.certPem, clients[0]);
  const helloTarget = { url: hello.url, ca: hello.ca };
  let helloRunning = true;
  const stopHello = async () => {
    if (!helloRunning) return;
    helloRunning = false;
    await hello.child.stop();
    hello.remove();
  };
  let floor: BareServer | null = null;
  let rounds: KeepAliveRound[] = [];
  let baselineHandshakes;
  const handshakeOptions = { clients: handshakeClients, seconds: SECONDS, concurrency: HANDSHAKE_CONCURRENCY, threads: HANDSHAKE_THREADS };
  try {
    // Every load, on every server, follows a warm-up of its own (lib/warm-up.ts): steady states are compared.
    // The hello-world's handshakes are measured before Canopy's process exists.
    if (!SKIP_HANDSHAKES) {
      await handshakeLoad({ ...handshakeOptions, ...helloTarget, seconds: WARM_UP_SECONDS });
      baselineHandshakes = await handshakeLoad({ ...handshakeOptions, ...helloTarget, serverPid: hello.child.process.pid });
    }

    // Shedding is set far above what one machine can do, so the figures are the server's capacity.
    const canopy = await startCanopy(databaseUrl, { CANOPY_DEVICE_HANDSHAKE_RATE: '1000000', CANOPY_DEVICE_HANDSHAKE_BURST: '1000000' });
    try {
      const serverCa = canopy.deviceServerCaPem();
      await enrollFleet(canopy, databaseUrl, deviceCa, devices);
      // The floor reads the devices Canopy enrolled, from the same database.
      const floorServer = await startBareServer('bench/lib/update-check-floor.ts', deviceCa.certPem, clients[0], { DATABASE_URL: databaseUrl });
      floor = floorServer;

      const url = `https://127.0.0.1:${canopy.devicePort}/update`;
      const headers = { 'canopy-release-version': '1.0.0' };
      const serverPid = canopy.child.process.pid;
      if (!SKIP_KEEPALIVE) {
        const floorTarget = { url: floorServer.url, ca: floorServer.ca, headers };
        await mtlsLoad({ ...helloTarget, clients, seconds: WARM_UP_SECONDS });
        await mtlsLoad({ url, ca: serverCa, clients, seconds: WARM_UP_SECONDS, headers });
        await mtlsLoad({ ...floorTarget, clients, seconds: WARM_UP_SECONDS });
        markLoad('keep-alive');
        rounds = await keepAliveRounds({
          hello: () => withCpuPerRequest(hello.child.process.pid, null, ROUND_SECONDS, () => mtlsLoad({ ...helloTarget, clients, seconds: ROUND_SECONDS })),
          canopy: () =>
            withCommitsPerRequest(databaseUrl, ROUND_SECONDS, () =>
              withCpuPerRequest(serverPid, databaseUrl, ROUND_SECONDS, () => mtlsLoad({ url, ca: serverCa, clients, seconds: ROUND_SECONDS, headers })),
            ),
          floor: () => withCpuPerRequest(floorServer.child.process.pid, databaseUrl, ROUND_SECONDS, () => mtlsLoad({ ...floorTarget, clients, seconds: ROUND_SECONDS })),
        });
      }
      await stopHello();
      const measured = { url, ca: serverCa, headers, serverPid, databaseUrl };
      // Each device's first connection since the server started (its chain not yet known), then,
      // after a warm-up, the devices reconnecting in turn: the figure the target is about.
      const firstContacts = SKIP_HANDSHAKES ? null : await handshakeLoad({ ...handshakeOptions, ...measured, once: true });
      if (!SKIP_HANDSHAKES) await handshakeLoad({ ...handshakeOptions, url, ca: serverCa, headers, seconds: WARM_UP_SECONDS });
      if (!SKIP_HANDSHAKES) markLoad('handshakes');
      const handshakes = SKIP_HANDSHAKES ? null : await withCommitsPerRequest(databaseUrl, SECONDS, () => handshakeLoad({ ...handshakeOptions, ...measured }));

      console.log(`\nGET /update over mTLS, ${DEVICES} registered devices on PostgreSQL, ${CONNECTIONS} keep-alive connections, ${os.cpus().length} cores`);
      if (rounds.length > 0) printKeepAlive(rounds);
      if (handshakes && firstContacts && baselineHandshakes) {
        console.log(`new connections (full TLS handshakes, ${HANDSHAKE_CONCURRENCY} at a time from ${HANDSHAKE_THREADS} client threads), target >= 500 /s:`);
        console.log(formatHandshakes('  hello-world (ceiling)', baselineHandshakes));
        console.log(formatHandshakes(`  Canopy, first of ${handshakeClients.length}`, firstContacts));
        console.log(formatHandshakes('  Canopy GET /update', handshakes), `  ratio ${(rateShare(handshakes, baselineHandshakes) * 100).toFixed(0)}%`);
        console.log(`  PostgreSQL transactions per reconnecting handshake (grouped statements, read-only ones included): ${handshakes.commitsPerRequest.toFixed(2)}`);
        const implied = impliedCapacity(handshakes);
        if (implied !== null) console.log(`  Canopy's server-side CPU per handshake implies ${implied.toFixed(0)} handshakes/s on ${TARGET_CORES} cores (target >= 500; the bare server's ${impliedCapacity(baselineHandshakes)!.toFixed(0)})`);
      }
      console.log(`load average during the run: ${loadAverage()}`);
      console.log(`server RSS now ${canopy.child.rssMb().toFixed(0)} MB, peak ${canopy.child.peakRssMb().toFixed(0)} MB`);
    } finally {
      await canopy.child.stop();
    }
    if (floor && baselineHandshakes) await measureFloorHandshakes(floor, databaseUrl, { ...handshakeOptions, baseline: baselineHandshakes });
  } finally {
    await stopHello();
    if (floor) {
      await floor.child.stop();
      floor.remove();
    }
  }
});

/**
 * New connections to the floor of a device API update check (lib/update-check-floor.ts: the
 * certificate verified by OpenSSL, the device found by its fingerprint, its event durably
 * recorded), on the same seeded database, after Canopy's process has stopped: how far what this
 * machine allows any implementation is from the handshake target.
 */
async function measureFloorHandshakes(
  floor: BareServer,
  databaseUrl: string,
  handshakes: Omit<HandshakeLoadOptions, 'url' | 'ca'> & { baseline: HandshakeLoadResult },
) {
  const { baseline: ceiling, ...options } = handshakes;
  const target = { url: floor.url, ca: floor.ca };
  await handshakeLoad({ ...options, ...target, seconds: WARM_UP_SECONDS });
  markLoad('floor handshakes');
  const measured = await handshakeLoad({ ...options, ...target, serverPid: floor.child.process.pid, databaseUrl });
  console.log(formatHandshakes('  floor (device + event only)', measured), `  ratio ${(rateShare(measured, ceiling) * 100).toFixed(0)}% of hello-world (target >= 500 /s)`);
}
