/**
 * Issue 46's benchmark, on PostgreSQL, each comparison measured in the same run:
 *
 * 1. The update check (GET /update with its manifest, 64 devices on kept-alive mutual TLS) beside
 *    the metadata requests a device on TUF makes to verify an offer (the next root, a 404 that
 *    records its trust posture; timestamp; snapshot; the product's targets), each loaded alone in
 *    the same rounds. The check itself reads no TUF metadata: a device fetches it only when an
 *    update is offered. Printed: the rate of whole verified offers (the check and the four) beside
 *    the plain check's, and the server's capacity in devices on TUF beside plain ones at the
 *    default poll with one release a day (target: at least 90%).
 * 2. The metadata's size: bytes per offer verified (the four files), beside the check's answer.
 * 3. The daemon's verification (packages/daemon/src/verify/tuf/verifier.ts: tuf-js refresh and
 *    the targets check), cold (no metadata on the device) and warm (only the timestamp new),
 *    beside today's Ed25519 signature check of the same binary (verify/signatures.ts).
 *
 * BENCH_ROUNDS (default 3) rounds of BENCH_SECONDS (default 5) per load after a warm-up;
 * BENCH_VERIFY (default 50) verifications of each kind.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Key } from '@tufjs/models';
import { createDeviceTransport } from '@canopy/sdk/device';
import { buildRoot, buildTopTargets, generateTufKey, signWith, withReleaseTargets } from '@canopy/sdk/tuf';
import { createTufVerifier } from '../packages/daemon/src/verify/tuf/verifier';
import { checkSignatures } from '../packages/daemon/src/verify/signatures';
import { CHECK_EXPANSIONS } from '../packages/daemon/src/update/agent';
import { startCanopy } from './lib/canopy';
import { makeDeviceCa, makeDevices } from './lib/device-certificates';
import { enrollFleet } from './lib/fleet-enrollment';
import { mtlsLoad, percentile, type MtlsLoadResult } from './lib/mtls-load';
import { withDatabase } from './lib/postgres';
import { WARM_UP_SECONDS } from './lib/warm-up';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const VERIFICATIONS = Number(process.env.BENCH_VERIFY ?? 50);
const CONNECTIONS = 64;
const PRODUCT = 'bench';
/** The check as the daemon makes it: with the manifest and what it expands. */
const CHECK = `/update?expand=${CHECK_EXPANSIONS.join(',')}`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(times: number, run: (i: number) => Promise<void> | void): Promise<number> {
  const each: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    await run(i);
    each.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(each);
}

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const headers = { authorization: `Bearer ${canopy.apiKey}`, 'content-type': 'application/json' };
    const api = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${canopy.url}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    };
    const deviceCa = await makeDeviceCa();
    const devices = await makeDevices(deviceCa, CONNECTIONS, CONNECTIONS);
    await enrollFleet(canopy, databaseUrl, deviceCa, devices);

    // One release of one binary to the devices' cohort: every check answers its manifest.
    const { rows: [product] } = await client.query(`select id, organization_id from products where name = $1`, [PRODUCT]);
    const org = product.organization_id as string;
    const { rows: [cohort] } = await client.query(`insert into cohorts (id, organization_id, product_id, name) values (gen_random_uuid(), $1, $2, 'bench') returning id`, [org, product.id]);
    await client.query(`update devices set cohort_id = $1, target = 'aarch64-unknown-linux-gnu' where product_id = $2`, [cohort.id, product.id]);
    const image = Buffer.alloc(1024, 7);
    const hash = createHash('sha256').update(image).digest('hex');
    const { rows: [artifact] } = await client.query(`insert into artifacts (id, organization_id, name) values (gen_random_uuid(), $1, 'rootfs') returning id`, [org]);
    const { rows: [version] } = await client.query(`insert into artifact_versions (id, organization_id, artifact_id, version) values (gen_random_uuid(), $1, $2, '1.0.0') returning id`, [org, artifact.id]);
    const { rows: [binary] } = await client.query(
      `insert into binaries (id, organization_id, artifact_version_id, target, hash, size, state) values (gen_random_uuid(), $1, $2, 'aarch64-unknown-linux-gnu', $3, $4, 'signed') returning id`,
      [org, version.id, hash, image.length],
    );
    const { rows: [bundle] } = await client.query(`insert into bundles (id, organization_id, name) values (gen_random_uuid(), $1, 'b1') returning id`, [org]);
    await client.query(`insert into bundle_artifact_versions (bundle_id, artifact_version_id, index) values ($1, $2, 0)`, [bundle.id, version.id]);
    const release = (await api('POST', '/releases', { cohort_prn: `prn:1:${org}:cohort:${cohort.id}`, bundle_prn: `prn:1:${org}:bundle:${bundle.id}`, name: 'r1', required: false, schedule_date: null })).release;
    const binaryPrn = `prn:1:${org}:binary:${binary.id}`;

    const deviceUrl = `https://127.0.0.1:${canopy.devicePort}`;
    const ca = canopy.deviceServerCaPem();
    const load = (file: string) => (seconds: number) => mtlsLoad({ url: `${deviceUrl}${file}`, ca, clients: devices, seconds });

    // The organization moves to TUF: a root signed offline, the server's online keys, the
    // top-level targets delegating the product to a release key, and the release signed.
    const made = (await api('POST', '/tuf/online_keys', {})).data;
    const online = { snapshot: Key.fromJSON(made.snapshot.keyid, made.snapshot.key), timestamp: Key.fromJSON(made.timestamp.keyid, made.timestamp.key) };
    const rootKey = generateTufKey();
    const targetsKey = generateTufKey();
    const releaseKey = generateTufKey();
    const root = signWith(buildRoot({ version: 1, root: { keys: [rootKey.key], threshold: 1 }, targets: { keys: [targetsKey.key], threshold: 1 }, snapshot: { keys: [online.snapshot], threshold: 1 }, timestamp: { keys: [online.timestamp], threshold: 1 } }), [rootKey]);
    await api('PUT', '/tuf/root', { root: root.toJSON() });
    await api('PUT', '/tuf/metadata/targets', { metadata: signWith(buildTopTargets(1, [{ product: PRODUCT, keys: [releaseKey.key], threshold: 1 }]), [targetsKey]).toJSON() });
    const signed = withReleaseTargets(null, PRODUCT, release.prn, [{ name: binaryPrn, sha256: hash, length: image.length }]);
    await api('PUT', `/tuf/metadata/${PRODUCT}`, { metadata: signWith(signed, [releaseKey]).toJSON() });

    // 1. The check and each metadata request of an offer, loaded alone, in the same rounds
    // (the order alternating between rounds); the median round's rates.
    const files = ['/tuf/2.root.json', '/tuf/timestamp.json', '/tuf/snapshot.json', `/tuf/${PRODUCT}.json`];
    const loads = [CHECK, ...files];
    for (const file of loads) await load(file)(WARM_UP_SECONDS / loads.length);
    const rounds: Record<string, MtlsLoadResult>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const round: Record<string, MtlsLoadResult> = {};
      for (const file of i % 2 === 0 ? loads : [...loads].reverse()) round[file] = await load(file)(SECONDS);
      rounds.push(round);
    }
    const rate = (file: string) => median(rounds.map((round) => round[file].requestsPerSecond));
    const checkRate = rate(CHECK);
    const metadataSeconds = files.reduce((sum, file) => sum + 1 / rate(file), 0);
    const offerRate = 1 / (1 / checkRate + metadataSeconds);
    // A device on the default 300 s poll with one new release a day: 288 checks, one offer verified.
    const checksPerOffer = 86_400 / 300;
    const amortized = (checksPerOffer / checkRate) / (checksPerOffer / checkRate + metadataSeconds);

    console.log(`\nPostgreSQL, ${CONNECTIONS} devices on kept-alive mutual TLS, ${ROUNDS} rounds of ${SECONDS} s per load; median rates`);
    console.log(`  GET /update (the check and its manifest) ${checkRate.toFixed(0)} req/s`);
    for (const file of files) {
      const all = rounds.map((round) => round[file]);
      console.log(`  GET ${file.padEnd(22)} ${rate(file).toFixed(0).padStart(7)} req/s  p99 ${percentile(all.flatMap((r) => r.latencies).sort((a, b) => a - b), 0.99)} ms  non-2xx ${all.reduce((n, r) => n + r.non2xx, 0)}${file.endsWith('root.json') ? ' (404: no newer root, by design)' : ''}`);
    }
    console.log(
      `  an offer verified (the check and the four metadata requests): ${offerRate.toFixed(0)}/s, ${((offerRate / checkRate) * 100).toFixed(1)}% of the plain check's rate; ` +
        `a device verifies once per offered release and its other polls are plain checks: at the default 300 s poll and one release a day, ` +
        `the server's capacity in devices is ${(amortized * 100).toFixed(1)}% of the plain check's (target >= 90%)`,
    );

    // 2. Sizes.
    const transport = createDeviceTransport({ baseUrl: deviceUrl, certPem: devices[0].certPem, keyPem: devices[0].keyPem, caPem: ca });
    const bytes = async (file: string) => Buffer.byteLength((await transport.send('GET', file)).text);
    const sizes = await Promise.all(files.map(bytes));
    const manifest = await bytes(CHECK);
    console.log(`Metadata per offer verified: ${sizes.reduce((a, b) => a + b, 0)} bytes (${files.map((f, i) => `${path.basename(f)} ${sizes[i]}`).join(', ')}); the check's answer ${manifest} bytes; a warm device fetches only the root probe and timestamp (${sizes[0] + sizes[1]} bytes) when nothing else changed`);

    // 3. The daemon's verification beside today's signature check.
    const rootFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-tuf-')), 'root.json');
    fs.writeFileSync(rootFile, JSON.stringify(root.toJSON()));
    const offer = { release_prn: release.prn, entries: [{ binary_prn: binaryPrn, size: image.length, hash }] };
    const stateDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-tuf-state-'));
    const cold = await timed(VERIFICATIONS, () => createTufVerifier({ rootPath: rootFile, product: PRODUCT, stateDir: stateDir(), transport }).check(offer));
    const warmVerifier = createTufVerifier({ rootPath: rootFile, product: PRODUCT, stateDir: stateDir(), transport });
    await warmVerifier.check(offer);
    const warm = await timed(VERIFICATIONS, () => warmVerifier.check(offer));
    const ed = generateKeyPairSync('ed25519');
    const signature = sign(null, Buffer.from(hash, 'ascii'), ed.privateKey).toString('hex');
    const ed25519 = await timed(VERIFICATIONS * 20, () => {
      if (!checkSignatures(hash, [{ signature }] as never, [{ id: 'k', key: ed.publicKey }], 1).ok) throw new Error('signature check failed');
    });
    console.log(`Daemon verification, median of ${VERIFICATIONS}: TUF cold ${cold.toFixed(1)} ms (every metadata file fetched), warm ${warm.toFixed(1)} ms (root probe and timestamp); today's Ed25519 check ${ed25519.toFixed(3)} ms (no request)`);
    transport.close();
  } finally {
    await client.end();
    await canopy.child.stop();
  }
});
