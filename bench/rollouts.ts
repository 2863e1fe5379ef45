/**
 * Issue 30's (and 44's) benchmark, on PostgreSQL, comparisons each measured in the same run:
 *
 * 1. GET /releases/{prn}/rollout on a cohort of BENCH_DEVICES (default 100,000) devices that all
 *    reported on the release, beside GET /releases/{prn} of the same release (target: at least
 *    50% of its requests per second), 64 connections (autocannon). The counts come from counters;
 *    the "why not" is the last evaluation (src/rollouts/service.ts), taken again in the
 *    background every 5 s of requests: its cost is in the figures.
 * 2. Report ingestion: POST /update/reports over mutual TLS, 64 devices each on one kept-alive
 *    connection, beside the device API's GET /update from the same devices (target: at least 70%).
 *    The reports are `downloading` progress reports for the release, the ones a daemon sends most.
 *    Each round also loads the floor of report ingestion (lib/report-ingestion-floor.ts: what any
 *    implementation must do, one durable row per report), so the figure says how far from what
 *    this machine allows the route is, whatever the neighbours' load.
 *
 * 3. The update check (GET /update, as in 2) with the rollout controls active (issue 44: the
 *    penalty box holding 1% of the cohort and half of the connecting devices, a maintenance
 *    window open now and a concurrency cap of BENCH_CAP, full) beside the plain check (target: at
 *    least 90%).
 * 4. Convergence under a cap: BENCH_CAP_DEVICES (default 10,000) devices of their own cohort
 *    check through the admin API's update check (the same check, without a certificate each) and
 *    each "installs" for BENCH_INSTALL_SECONDS, then frees its place as its installed report
 *    would; a refused device waits its retry_after. The time until every device installed is
 *    printed beside the theoretical minimum (ceil(devices / cap) x install time) and the most
 *    places ever held at once, sampled.
 *
 * BENCH_ONLY=rollout|ingestion|controls|convergence runs one of them; BENCH_BUNDLE=dist-before runs an earlier
 * server bundle (packages/server/dist-before, see compare-bundles.ts) instead of the working tree's. Each comparison runs BENCH_ROUNDS (default 3) rounds of BENCH_SECONDS (default 5) per load,
 * alternating which goes first, after a warm-up of each; the median round's ratio is printed with
 * the p99 over all rounds. Seeding goes straight into the database (devices and their reports in
 * batches; the triggers of migration 0006 keep the counters as they would for reports
 * over the API); the releases are created through the API, so the chain stamp moves as in
 * production, and the 64 connecting devices are registered with real certificates
 * (lib/fleet-enrollment.ts).
 */
import pg from 'pg';
import { startBareServer, type BareServer } from './lib/bare-server';
import { loadAverage } from './lib/cpu-time';
import { startCanopy } from './lib/canopy';
import { makeDeviceCa, makeDevices } from './lib/device-certificates';
import { enrollFleet } from './lib/fleet-enrollment';
import { formatRatio, load, type LoadResult } from './lib/load';
import { capConvergence } from './lib/cap-convergence';
import { mtlsLoad, percentile, type MtlsLoadResult } from './lib/mtls-load';
import { withDatabase } from './lib/postgres';
import { WARM_UP_SECONDS } from './lib/warm-up';
import { alternateRounds, type Measured } from './lib/alternate-rounds';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 64;
/** BENCH_ONLY=rollout, ingestion or controls runs one comparison. */
const ONLY = process.env.BENCH_ONLY;
/** BENCH_BUNDLE=<dir under packages/server>: run an earlier server bundle (a before/after), not the working tree's. */
const BUNDLE = process.env.BENCH_BUNDLE || undefined;
/** Rows per seeding statement. */
const SEED_BATCH = 2000;
const STATUSES = ['downloading', 'installing', 'rebooting', 'installed', 'failed', 'rolled_back'];
/** The concurrency cap of parts 3 and 4. */
const CAP = Number(process.env.BENCH_CAP ?? 500);
const CAP_DEVICES = Number(process.env.BENCH_CAP_DEVICES ?? 10_000);
const INSTALL_SECONDS = Number(process.env.BENCH_INSTALL_SECONDS ?? 10);
/** The retry hint's base the server is started with (CANOPY_CAP_RETRY_SECONDS). */
const RETRY_SECONDS = Number(process.env.BENCH_RETRY_SECONDS ?? 5);

const compare = <T extends Measured>(measured: () => Promise<T>, baseline: () => Promise<T>, p99Of: (results: T[]) => number) => alternateRounds(ROUNDS, measured, baseline, p99Of);

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl, { CANOPY_CAP_RETRY_SECONDS: String(RETRY_SECONDS) }, BUNDLE);
  let floor: BareServer | null = null;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const headers = { authorization: `Bearer ${canopy.apiKey}`, 'content-type': 'application/json' };
    const deviceCa = await makeDeviceCa();
    const connecting = await makeDevices(deviceCa, CONNECTIONS, CONNECTIONS);
    await enrollFleet(canopy, databaseUrl, deviceCa, connecting);
    const { rows: [product] } = await client.query(`select id, organization_id from products where name = 'bench'`);
    const org = { id: product.organization_id as string };
    const { rows: [cohort] } = await client.query(`insert into cohorts (id, organization_id, product_id, name) values (gen_random_uuid(), $1, $2, 'bench') returning id`, [org.id, product.id]);
    const { rows: [artifact] } = await client.query(`insert into artifacts (id, organization_id, name) values (gen_random_uuid(), $1, 'rootfs') returning id`, [org.id]);
    const releasePrns: string[] = [];
    const bundlePrns: string[] = [];
    for (let i = 1; i <= 2; i++) {
      const { rows: [version] } = await client.query(`insert into artifact_versions (id, organization_id, artifact_id, version) values (gen_random_uuid(), $1, $2, $3) returning id`, [org.id, artifact.id, `1.0.${i}`]);
      await client.query(
        `insert into binaries (id, organization_id, artifact_version_id, target, hash, size, state) values (gen_random_uuid(), $1, $2, 'aarch64-unknown-linux-gnu', $3, 1024, 'signed')`,
        [org.id, version.id, 'a'.repeat(64)],
      );
      const { rows: [bundle] } = await client.query(`insert into bundles (id, organization_id, name) values (gen_random_uuid(), $1, $2) returning id`, [org.id, `b${i}`]);
      await client.query(`insert into bundle_artifact_versions (bundle_id, artifact_version_id, index) values ($1, $2, 0)`, [bundle.id, version.id]);
      bundlePrns.push(`prn:1:${org.id}:bundle:${bundle.id}`);
      const response = await fetch(`${canopy.url}/releases`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ cohort_prn: `prn:1:${org.id}:cohort:${cohort.id}`, bundle_prn: bundlePrns[i - 1], name: `r${i}`, required: false, schedule_date: null, phase_value: i === 2 ? 0.5 : 1 }),
      });
      const body = (await response.json()) as { release: { prn: string } };
      if (response.status !== 201) throw new Error(`release: ${response.status} ${JSON.stringify(body)}`);
      releasePrns.push(body.release.prn);
    }
    const [r1, r2] = releasePrns;
    const started = Date.now();
    // The connecting devices join the cohort on r1; the rest of the cohort is seeded beside them.
    await client.query(`update devices set cohort_id = $1, target = 'aarch64-unknown-linux-gnu', reported_release_prn = $2, reported_bundle_prn = $3 where product_id = $4`, [
      cohort.id,
      r1,
      bundlePrns[0],
      product.id,
    ]);
    // In batches, each its own transaction: the counter triggers update one stripe row per row
    // written, and a row updated 100,000 times in one transaction costs quadratic time.
    for (let from = 1; from <= DEVICES - CONNECTIONS; from += SEED_BATCH) {
      await client.query(
        `insert into devices (id, organization_id, product_id, cohort_id, identifier, target, reported_release_prn, reported_bundle_prn)
         select gen_random_uuid(), $1, $2, $3, 'device-' || g, 'aarch64-unknown-linux-gnu', $6, $7 from generate_series($4::int, $5::int) g`,
        [org.id, product.id, cohort.id, from, Math.min(DEVICES - CONNECTIONS, from + SEED_BATCH - 1), r1, bundlePrns[0]],
      );
    }
    const { rows: deviceIds } = await client.query(`select id from devices where cohort_id = $1`, [cohort.id]);
    for (let from = 0; from < deviceIds.length; from += SEED_BATCH) {
      await client.query(
        `insert into device_update_reports (id, organization_id, device_id, release_id, bundle_id, status, event_id)
         select gen_random_uuid(), $1, d, $2, $3, ($4::text[])[1 + (n::int % 6)], gen_random_uuid() from unnest($5::uuid[]) with ordinality as t(d, n)`,
        [org.id, r2.split(':').pop(), bundlePrns[1].split(':').pop(), STATUSES, deviceIds.slice(from, from + SEED_BATCH).map((row) => row.id)],
      );
    }
    await client.query('vacuum analyze devices');
    await client.query('vacuum analyze device_update_reports');
    console.error(`seeded ${DEVICES} devices and their reports in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    console.log(`\nPostgreSQL, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per load (rounds' ratios in brackets)`);
    if (ONLY === undefined || ONLY === 'rollout') {
      // 1. Rollout progress beside the release's own read.
      const admin = (path: string) => {
        const options = { url: `${canopy.url}${path}`, connections: CONNECTIONS, headers };
        return { warm: () => load({ ...options, seconds: WARM_UP_SECONDS }), run: () => load({ ...options, seconds: SECONDS }) };
      };
      const release = admin(`/releases/${r2}`);
      const rollout = admin(`/releases/${r2}/rollout`);
      await release.warm();
      await rollout.warm();
      const progress = await compare<LoadResult>(rollout.run, release.run, (results) => Math.max(...results.map((r) => r.p99)));
      const answer = (await (await fetch(`${canopy.url}/releases/${r2}/rollout`, { headers })).json()) as {
        rollout: { cohort_devices: number; reported: Record<string, number>; eligible: number; eligibility_evaluated_at: string };
      };
      console.log(`GET /releases/{prn}/rollout, ${DEVICES} devices all reported:`);
      console.log(formatRatio('rollout progress', progress.measured, progress.baseline, 0.5), `(baseline: GET /releases/{prn}) [${progress.ratios}]`);
      console.log(`  cohort ${answer.rollout.cohort_devices}, reported ${JSON.stringify(answer.rollout.reported)}, eligible ${answer.rollout.eligible}, evaluated at ${answer.rollout.eligibility_evaluated_at}`);
    }
    if (ONLY === undefined || ONLY === 'controls') {
      // 3. The update check with the rollout controls active beside the plain check, same run:
      // before each measured round, 1% of the cohort and half of the connecting devices rest
      // from r2 in the penalty box (so every check of the cohort reads its device's rows and
      // half of them take resolution's penalty-box branch); after it, the box is emptied again.
      const device = { url: `https://127.0.0.1:${canopy.devicePort}/update`, ca: canopy.deviceServerCaPem(), clients: connecting };
      const position = { 'canopy-release-prn': r1, 'canopy-bundle-prn': bundlePrns[0] };
      const check = (seconds: number) => mtlsLoad({ ...device, seconds, headers: position });
      const r2Id = r2.split(':').pop();
      const resting = deviceIds.filter((_, i) => i % 100 === 0).map((row) => row.id as string);
      const { rows: connectingIds } = await client.query(`select id from devices where product_id = $1 and identifier not like 'device-%'`, [product.id]);
      const boxed = [...resting, ...connectingIds.filter((_, i) => i % 2 === 0).map((row) => row.id as string)];
      const fillBox = () =>
        client.query(
          `insert into penalty_box (release_id, device_id, organization_id, cohort_id, rests, rest_until)
           select $1, d, $2, $3, 1, now() + interval '1 day' from unnest($4::uuid[]) d on conflict do nothing`,
          [r2Id, org.id, cohort.id, boxed],
        );
      const emptyBox = () => client.query(`delete from penalty_box where release_id = $1`, [r2Id]);
      // The cap, full: CAP places held by seeded devices, so every connecting device that gets as
      // far reads the count and is answered retry_later. The window is open now (all week but the
      // last minute of each day: an end must differ from its start), so
      // each check evaluates it. Both set through the API (the chain stamp moves), then removed.
      const holders = deviceIds.filter((_, i) => i % 100 === 1).slice(0, CAP).map((row) => row.id as string);
      const patch = async (body: unknown) => {
        const response = await fetch(`${canopy.url}/releases/${r2}`, { method: 'PATCH', headers, body: JSON.stringify(body) });
        if (response.status !== 200) console.error(await response.text());
        return response.status;
      };
      const allWeek = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '23:59', time_zone: 'UTC' }];
      const controlsOn = async () => {
        if ((await patch({ max_concurrent: CAP, maintenance_windows: allWeek })) !== 200) throw new Error('could not cap r2');
        await client.query(
          `insert into update_slots (release_id, device_id, organization_id, taken_at, expires_at) select $1, d, $2, now(), now() + interval '1 hour' from unnest($3::uuid[]) d on conflict do nothing`,
          [r2Id, org.id, holders],
        );
        await fillBox();
      };
      const controlsOff = async () => {
        await emptyBox();
        await client.query(`delete from update_slots where release_id = $1`, [r2Id]);
        if ((await patch({ max_concurrent: null, maintenance_windows: null })) !== 200) throw new Error('could not uncap r2');
      };
      await check(WARM_UP_SECONDS);
      await controlsOn();
      const probe = await check(1);
      await controlsOff();
      const controls = await compare<MtlsLoadResult>(
        async () => {
          await controlsOn();
          try {
            return await check(SECONDS);
          } finally {
            await controlsOff();
          }
        },
        () => check(SECONDS),
        (results) => percentile(results.flatMap((r) => r.latencies).sort((a, b) => a - b), 0.99),
      );
      console.log(
        `GET /update over mutual TLS, kept alive, ${boxed.length} devices resting in the penalty box (${CONNECTIONS / 2} of them connecting), ` +
          `r2 capped at ${CAP} (full) inside an all-week maintenance window (${probe.non2xx} non-2xx in a 1 s probe):`,
      );
      console.log(formatRatio('check with controls', controls.measured, controls.baseline, 0.9), `(baseline: the plain check) [${controls.ratios}]`);
      console.log(`  connections closed by the server: ${controls.measured.errors} with controls, ${controls.baseline.errors} plain; load average at the end: ${loadAverage()}`);
    }
    if (ONLY === undefined || ONLY === 'convergence') {
      // 4. Convergence of a capped release (lib/cap-convergence.ts).
      const result = await capConvergence({ client, databaseUrl, url: canopy.url, headers, organizationId: org.id, productId: product.id, devices: CAP_DEVICES, cap: CAP, installSeconds: INSTALL_SECONDS });
      console.log(`Convergence: ${CAP_DEVICES} devices, cap ${CAP}, each install ${INSTALL_SECONDS} s, retry hint ${RETRY_SECONDS} s +-25%:`);
      console.log(
        `  ${result.seconds.toFixed(1)} s to every device installed; theoretical minimum ${result.minimumSeconds} s ` +
          `(ceil(${CAP_DEVICES} / ${CAP}) = ${Math.ceil(CAP_DEVICES / CAP)} waves of ${INSTALL_SECONDS} s: never more than ${CAP} installing, no place ever idle); ` +
          `${((result.minimumSeconds / result.seconds) * 100).toFixed(1)}% of the minimum's speed`,
      );
      console.log(`  ${result.checks} checks (${result.refused} answered retry_later); most places held at once, sampled every 20 ms: ${result.maxHeldSampled} (cap ${CAP})`);
    }
    if (ONLY !== 'rollout' && ONLY !== 'controls' && ONLY !== 'convergence') {
      // 2. Report ingestion beside the update check, from the same devices over mutual TLS, and
      // beside its floor (lib/report-ingestion-floor.ts: one durable row per report, grouped).
      const device = { url: `https://127.0.0.1:${canopy.devicePort}`, ca: canopy.deviceServerCaPem(), clients: connecting };
      const position = { 'canopy-release-prn': r1, 'canopy-bundle-prn': bundlePrns[0] };
      const report = JSON.stringify({ status: 'downloading', release_prn: r2, bundle_prn: bundlePrns[1], progress: 0.5 });
      floor = await startBareServer('bench/lib/report-ingestion-floor.ts', deviceCa.certPem, connecting[0], { DATABASE_URL: databaseUrl }, { path: '/update/reports', body: report });
      const floorServer = floor;
      const check = (seconds: number) => mtlsLoad({ ...device, url: `${device.url}/update`, seconds, headers: position });
      const ingest = (seconds: number) => mtlsLoad({ ...device, url: `${device.url}/update/reports`, seconds, body: report });
      const atFloor = (seconds: number) => mtlsLoad({ url: floorServer.url, ca: floorServer.ca, clients: connecting, seconds, body: report });
      await check(WARM_UP_SECONDS);
      await ingest(WARM_UP_SECONDS);
      await atFloor(WARM_UP_SECONDS);
      const floorRates: number[] = [];
      const ingestion = await compare<MtlsLoadResult>(
        () => ingest(SECONDS),
        async () => {
          // The floor's load runs beside each round's baseline, so its rate is of the same minute.
          const measured = await check(SECONDS);
          floorRates.push((await atFloor(SECONDS)).requestsPerSecond);
          return measured;
        },
        (results) => percentile(results.flatMap((r) => r.latencies).sort((a, b) => a - b), 0.99),
      );
      const medianFloor = [...floorRates].sort((a, b) => a - b)[Math.floor((floorRates.length - 1) / 2)];
      console.log(`POST /update/reports over mutual TLS, kept alive${BUNDLE ? ` (server bundle ${BUNDLE})` : ''}:`);
      console.log(formatRatio('report ingestion', ingestion.measured, ingestion.baseline, 0.7), `(baseline: GET /update) [${ingestion.ratios}]`);
      console.log(
        `  floor (device + one durable row per report, grouped): rounds ${floorRates.map((r) => r.toFixed(0)).join(', ')} req/s; ` +
          `ingestion at ${((ingestion.measured.requestsPerSecond / medianFloor) * 100).toFixed(1)}% of its median`,
      );
      console.log(`  load average at the end: ${loadAverage()}`);
    }
  } finally {
    await client.end();
    await canopy.child.stop();
    if (floor) {
      await floor.child.stop();
      floor.remove();
    }
  }
});
