/**
 * How long a release capped at `cap` takes to reach `devices` devices (bench/rollouts.ts, part
 * 4). Each device runs the real update check (the admin API's, which takes the same place under
 * the cap as GET /update, without a certificate per device), "installs" for `installSeconds`,
 * then frees its place with the statement its installed report runs; a refused device waits its
 * retry_after. Minimum: at most `cap` devices install at once, so ceil(devices / cap) waves of
 * `installSeconds` each, with no time lost between them.
 */
import pg from 'pg';

export interface ConvergenceOptions {
  client: pg.Client;
  databaseUrl: string;
  url: string;
  headers: Record<string, string>;
  organizationId: string;
  productId: string;
  devices: number;
  cap: number;
  installSeconds: number;
  /** Devices checking at once, at most (the HTTP client's pool; the rest wait their turn). */
  inFlight?: number;
}

export interface ConvergenceResult {
  seconds: number;
  minimumSeconds: number;
  checks: number;
  refused: number;
  maxHeldSampled: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function capConvergence(options: ConvergenceOptions): Promise<ConvergenceResult> {
  const { client, url, headers, organizationId: org } = options;
  // At most `inFlight` requests out at once (a fleet's checks queue at the server the same way).
  let out = 0;
  const queue: (() => void)[] = [];
  const post = async (path: string, body: unknown) => {
    if (out >= (options.inFlight ?? 64)) await new Promise<void>((resolve) => queue.push(resolve));
    out++;
    try {
      return await postNow(path, body);
    } finally {
      out--;
      queue.shift()?.();
    }
  };
  const postNow = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as Record<string, any>;
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const { rows: [cohort] } = await client.query(`insert into cohorts (id, organization_id, product_id, name) values (gen_random_uuid(), $1, $2, 'capped') returning id`, [org, options.productId]);
  const cohortPrn = `prn:1:${org}:cohort:${cohort.id}`;
  const { rows: bundles } = await client.query(`select id from bundles where organization_id = $1 order by name limit 2`, [org]);
  const bundlePrn = (i: number) => `prn:1:${org}:bundle:${bundles[i].id}`;
  const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
  const r1 = (await post('/releases', { ...base, bundle_prn: bundlePrn(0), name: 'c1' })).release.prn as string;
  const r2 = (await post('/releases', { ...base, bundle_prn: bundlePrn(1), name: 'c2', max_concurrent: options.cap, slot_timeout_seconds: 3600 })).release.prn as string;
  const { rows: ids } = await client.query(
    `insert into devices (id, organization_id, product_id, cohort_id, identifier, target, reported_release_prn, reported_bundle_prn)
     select gen_random_uuid(), $1, $2, $3, 'capped-' || g, 'aarch64-unknown-linux-gnu', $4, $5 from generate_series(1, $6::int) g returning id`,
    [org, options.productId, cohort.id, r1, bundlePrn(0), options.devices],
  );
  await client.query('vacuum analyze devices');
  const r2Id = r2.split(':').pop();

  let sampling = true;
  let maxHeld = 0;
  const sampler = new pg.Client({ connectionString: options.databaseUrl });
  // The sampler reads on its own connection (the given client frees places meanwhile).
  await sampler.connect();
  const sampled = (async () => {
    while (sampling) {
      const { rows } = await sampler.query('select count(*)::int as n from update_slots where release_id = $1 and expires_at > now()', [r2Id]);
      maxHeld = Math.max(maxHeld, rows[0].n);
      await sleep(20);
    }
  })();

  let checks = 0;
  let refused = 0;
  // A pool of frees on its own connections: the statement of an installed report (updates/slot-claims.ts freeSlot).
  const freer = new pg.Pool({ connectionString: options.databaseUrl, max: 8 });
  const started = Date.now();
  const runDevice = async (id: string) => {
    for (;;) {
      checks++;
      const answer = await post(`/devices/prn:1:${org}:device:${id}/update`, { release_prn: r1, bundle_prn: bundlePrn(0) });
      if (answer.status === 'retry_later') {
        refused++;
        await sleep(answer.retry_after * 1000);
        continue;
      }
      if (answer.status !== 'update') throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
      await sleep(options.installSeconds * 1000);
      await freer.query('delete from update_slots where release_id = $1 and device_id = $2', [r2Id, id]);
      return;
    }
  };
  // Every device starts at once, as a fleet polling after the release appears.
  await Promise.all(ids.map((row) => runDevice(row.id as string)));
  const seconds = (Date.now() - started) / 1000;
  sampling = false;
  await sampled;
  await sampler.end();
  await freer.end();
  return { seconds, minimumSeconds: Math.ceil(options.devices / options.cap) * options.installSeconds, checks, refused, maxHeldSampled: maxHeld };
}
