import { describe, expect, it } from 'vitest';
import { FLEET_TARGET, useFleet } from '../support/fleet';
import { bytesOf, uploadedBinary } from '../support/binaries';
import { useTestServer } from '../support/server';
import { expectPlannedOnce } from '../support/statement-plans';

const t = useTestServer();
const fleet = useFleet(t);

async function release(cohortPrn: string, bundlePrn: string, fields: Record<string, unknown> = {}) {
  const res = await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohortPrn, name: 'r', required: false, schedule_date: null, ...fields });
  expect(res.status).toBe(201);
  return res.body.release;
}
const check = (devicePrn: string, body: Record<string, unknown>, key?: string) => t.api('POST', `/devices/${devicePrn}/update`, body, key ? { key } : {});
const events = async (devicePrn: string, subtype: string) =>
  (await t.api('GET', `/events?limit=100&resource_prn=${encodeURIComponent(devicePrn)}&subtype=${subtype}`)).body.events;

describe('POST /devices/{prn}/update', () => {
  it('offers the latest release with its manifest, then no_update once the device runs it', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn, { version: '1.0.0' });
    const r2 = await release(cohort.prn, b2.prn, { version: '1.1.0' });
    const device = await fleet.device({ cohortId: cohort.id });
    const res = await check(device.prn, { release_prn: r1.prn });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'update', source_type: 'release', source_prn: r2.prn, bundle_prn: b2.prn });
    expect(res.body.manifest).toHaveLength(1);
    const [entry] = res.body.manifest;
    // The public API's flat entry: artifact_prn, the version as a string, metadata always an object.
    expect(Object.keys(entry).sort()).toEqual(['artifact_prn', 'artifact_version', 'binary_prn', 'custom_metadata', 'hash', 'signatures', 'size', 'target', 'url']);
    expect(entry).toMatchObject({ binary_prn: b2.binaryPrn, hash: b2.hash, size: b2.size, target: FLEET_TARGET, custom_metadata: {} });
    expect(entry.artifact_prn).toMatch(new RegExp(`^prn:1:${t.organizationId}:artifact:`));
    expect(typeof entry.artifact_version).toBe('string');
    // Real signatures with the key's PEM, and a download URL that serves the uploaded bytes.
    expect(entry.signatures).toEqual([{ signature: expect.stringMatching(/^[0-9a-f]{128}$/), signing_key_prn: b2.signingKeyPrn, public_value: expect.stringContaining('-----BEGIN PUBLIC KEY-----') }]);
    const download = await fetch(entry.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(b2.bytes)).toBe(true);
    expect((await check(device.prn, { release_prn: r2.prn })).body).toEqual({ status: 'no_update', source_type: null, source_prn: null, bundle_prn: null, manifest: null });
    expect((await check(device.prn, { release_version: '1.1.0' })).body.status).toBe('no_update');
  });

  it('stops at a required release, skips disabled, scheduled and unmet requirements, refuses unsigned bundles', async () => {
    const cohort = await fleet.cohort();
    const b = await Promise.all([1, 2, 3, 4].map(() => fleet.bundle()));
    const r1 = await release(cohort.prn, b[0].prn, { version: '1.0.0' });
    const r2 = await release(cohort.prn, b[1].prn, { version: '1.1.0', required: true });
    const r3 = await release(cohort.prn, b[2].prn, { version: '1.2.0', version_requirement: '>= 1.1.0' });
    const device = await fleet.device({ cohortId: cohort.id });
    expect((await check(device.prn, { release_prn: r1.prn })).body.source_prn).toBe(r2.prn);
    expect((await check(device.prn, { release_prn: r2.prn, release_version: '1.1.0' })).body.source_prn).toBe(r3.prn);
    expect((await check(device.prn, { release_prn: r2.prn, release_version: '1.0.5' })).body.status).toBe('no_update');
    await t.api('PATCH', `/releases/${r3.prn}`, { disabled: true });
    expect((await check(device.prn, { release_prn: r2.prn, release_version: '1.1.0' })).body.status).toBe('no_update');
    const unsigned = await fleet.bundle({ signed: false });
    const r4 = await release(cohort.prn, unsigned.prn);
    const explain = await t.api('GET', `/devices/${device.prn}/update/explain?release_prn=${encodeURIComponent(r2.prn)}&release_version=1.1.0`);
    expect(explain.status).toBe(200);
    expect(explain.body.status).toBe('no_update');
    expect(explain.body.steps).toContainEqual(expect.objectContaining({ step: 'bundle_signed', reason: 'unsigned_binaries', subject_prn: r4.prn }));
    await t.api('PATCH', `/releases/${r4.prn}`, { schedule_date: new Date(Date.now() + 3_600_000).toISOString() });
    const scheduled = await t.api('GET', `/devices/${device.prn}/update/explain?release_prn=${encodeURIComponent(r2.prn)}&release_version=1.1.0`);
    expect(scheduled.body.steps).toContainEqual(expect.objectContaining({ reason: 'scheduled', subject_prn: r4.prn }));
    expect(scheduled.body.steps).toContainEqual(expect.objectContaining({ reason: 'disabled', subject_prn: r3.prn }));
  });

  it('quarantine, no cohort, overrides beat releases', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn);
    const quarantined = await fleet.device({ cohortId: cohort.id, quarantined: true });
    expect((await check(quarantined.prn, { release_version: '0.1.0' })).body.status).toBe('device_quarantine');
    const loose = await fleet.device();
    expect((await check(loose.prn, { release_version: '0.1.0' })).body.status).toBe('no_update');
    const device = await fleet.device({ cohortId: cohort.id });
    const override = (
      await t.api('POST', '/bundle_overrides', { name: 'hotfix', bundle_prn: b2.prn, starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 60_000).toISOString() })
    ).body.bundle_override;
    expect((await t.api('POST', `/bundle_overrides/${override.prn}/devices`, { device_prn: device.prn })).status).toBe(201);
    expect((await check(device.prn, { release_prn: r1.prn })).body).toMatchObject({ status: 'update', source_type: 'bundle_override', source_prn: override.prn, bundle_prn: b2.prn });
    expect((await check(device.prn, { bundle_prn: b2.prn })).body.status).toBe('no_update');
  });

  it('records checked_for_release every time, and release_changed when write changes the reported release', async () => {
    const cohort = await fleet.cohort();
    const b1 = await fleet.bundle();
    const r1 = await release(cohort.prn, b1.prn, { version: '1.0.0' });
    const device = await fleet.device({ cohortId: cohort.id });
    await check(device.prn, { release_prn: r1.prn });
    await check(device.prn, { release_prn: r1.prn, write: true });
    await check(device.prn, { release_prn: r1.prn, write: true }); // same state: no change event
    expect(await events(device.prn, 'checked_for_release')).toHaveLength(3);
    const changed = await events(device.prn, 'release_changed');
    expect(changed).toHaveLength(1);
    const got = await t.api('GET', `/devices/${device.prn}`);
    expect(got.body.device.reported_release_prn).toBe(r1.prn);
    // The public API's shapes: the device object with its cohort, releases and bundles as objects.
    const cohortName = (await t.api('GET', `/cohorts/${cohort.prn}`)).body.cohort.name;
    const deviceObject = { prn: device.prn, identifier: got.body.device.identifier, cohort: { cohort_prn: cohort.prn, cohort_name: cohortName } };
    expect(changed[0].data).toEqual({
      type: 'release_changed',
      data: { device: deviceObject, from_release: null, to_release: { prn: r1.prn, version: r1.version, known: true }, from_bundle: null, to_bundle: null },
    });
    const [checked] = await events(device.prn, 'checked_for_release');
    expect(checked.data.data).toMatchObject({ device: deviceObject, status: 'no_update', release: null, bundle: null });

    // A move to an unknown release and a bundle: known says what Canopy has.
    const b2 = await fleet.bundle({ name: 'named-bundle' });
    const unknown = `prn:1:${t.organizationId}:release:00000000-0000-4000-8000-000000000000`;
    await check(device.prn, { release_prn: unknown, bundle_prn: b2.prn, write: true });
    const [moved] = await events(device.prn, 'release_changed');
    expect(moved.data.data).toEqual({
      device: deviceObject,
      from_release: { prn: r1.prn, version: r1.version },
      to_release: { prn: unknown, version: null, known: false },
      from_bundle: null,
      to_bundle: { prn: b2.prn, known: true },
    });
    const [offered] = await events(device.prn, 'checked_for_release');
    expect(offered.data.data.release).toEqual({ prn: r1.prn, version: r1.version });
    expect(offered.data.data.bundle).toEqual({ prn: b1.prn, name: expect.any(String) });
  });

  it('needs one of release_prn, bundle_prn, release_version (422), a current key (403) and write role; 404 across organizations', async () => {
    const device = await fleet.device();
    const empty = await check(device.prn, { write: true });
    expect(empty.status).toBe(422);
    expect(empty.body.errors.map((e: any) => e.context.field)).toEqual(['release_prn', 'bundle_prn', 'release_version']);
    const legacy = await t.keyWithRole('admin', 'legacy');
    const refused = await check(device.prn, { release_version: '1.0.0' }, legacy);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('legacy_api_key_not_allowed');
    expect((await check(device.prn, { release_version: '1.0.0' }, await t.keyWithRole('read'))).status).toBe(403);
    const other = await t.createOrganization();
    expect((await other.api('POST', `/devices/${device.prn}/update`, { release_version: '1.0.0' })).status).toBe(404);
    expect((await other.api('GET', `/devices/${device.prn}/update/explain`)).status).toBe(404);
  });

  it('phase claims: a numeric phase hands out exactly its slots, stable per device, with claimed_release events', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn);
    const r2 = await release(cohort.prn, b2.prn, { phase_value: 0.3 });
    const devices = await fleet.devices(10, cohort.id);
    const answers = await Promise.all(devices.map((d) => check(d.prn, { release_prn: r1.prn })));
    const winners = devices.filter((_, i) => answers[i].body.source_prn === r2.prn);
    expect(winners).toHaveLength(3);
    for (const winner of winners) expect((await check(winner.prn, { release_prn: r1.prn })).body.source_prn).toBe(r2.prn);
    expect((await t.api('GET', `/releases/${r2.prn}`)).body.release.phase_claim_count).toBe(3);
    expect(await events(winners[0].prn, 'claimed_release')).toHaveLength(1);
    const loser = devices.find((d) => !winners.includes(d))!;
    const explain = await t.api('GET', `/devices/${loser.prn}/update/explain?release_prn=${encodeURIComponent(r1.prn)}`);
    expect(explain.body.steps).toContainEqual(expect.objectContaining({ reason: 'phase_full', subject_prn: r2.prn }));
  });

  it('tags mode: only devices with one of the tags', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn);
    const r2 = await release(cohort.prn, b2.prn, { phase_mode: 'tags', phase_tags: ['canary'] });
    const canary = await fleet.device({ cohortId: cohort.id, tags: ['canary', 'eu'] });
    const plain = await fleet.device({ cohortId: cohort.id, tags: ['eu'] });
    expect((await check(canary.prn, { release_prn: r1.prn })).body.source_prn).toBe(r2.prn);
    expect((await check(plain.prn, { release_prn: r1.prn })).body.status).toBe('no_update');
  });
});

describe('the update check statements', () => {
  it.skipIf(!process.env.DATABASE_URL)('are planned once per database connection, whatever each group holds (PostgreSQL only: set DATABASE_URL)', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn);
    await release(cohort.prn, b2.prn, { phase_value: 1_000_000 });
    const sizes = [1, 2, 3, 1, 2, 3, 1];
    const devices = await fleet.devices(13, cohort.id);
    // More executions than PostgreSQL's five custom plans, in groups of different sizes: in the
    // first round every check claims a slot of the phased release (the full statement); in the
    // second every device holds its claim and writes only its event (the events-only statement).
    for (let round = 0; round < 2; round += 1) {
      let next = 0;
      for (const size of sizes) {
        const group = devices.slice(next, (next += size));
        await Promise.all(group.map((d) => check(d.prn, { release_prn: r1.prn })));
      }
    }
    for (const statement of ['release_check_writes', 'release_check_events', 'release_device_check_state']) await expectPlannedOnce(t.server.platform.db, statement);
  });
});

describe('bundles used by releases and overrides', () => {
  it('DELETE /bundles/{prn} answers 409 bundle_in_use while a release or an override uses the bundle', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2, unused] = [await fleet.bundle(), await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn);
    const override = (
      await t.api('POST', '/bundle_overrides', { name: 'pin', bundle_prn: b2.prn, starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 60_000).toISOString() })
    ).body.bundle_override;
    for (const used of [b1, b2]) {
      const refused = await t.api('DELETE', `/bundles/${used.prn}`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0]).toMatchObject({ code: 'bundle_in_use', context: { prn: used.prn } });
      expect((await t.api('GET', `/bundles/${used.prn}`)).status).toBe(200);
    }
    expect((await t.api('DELETE', `/bundles/${unused.prn}`)).status).toBe(204);
    // Once nothing uses them, they can go.
    expect((await t.api('DELETE', `/bundle_overrides/${override.prn}`)).status).toBe(204);
    expect((await t.api('DELETE', `/bundles/${b2.prn}`)).status).toBe(204);
    expect((await t.api('DELETE', `/releases/${r1.prn}`)).status).toBe(204);
    expect((await t.api('DELETE', `/bundles/${b1.prn}`)).status).toBe(204);
  });

  it("offers a device its own target's binaries only, and needs only those signed", async () => {
    const cohort = await fleet.cohort();
    const b1 = await fleet.bundle();
    const r1 = await release(cohort.prn, b1.prn);
    // One artifact version with a signed binary for FLEET_TARGET and an unsigned one for x86_64.
    const multi = await fleet.bundle();
    const version = (await t.api('GET', `/bundles/${multi.prn}`)).body.bundle.artifact_version_prns[0];
    const other = await uploadedBinary(t.api, bytesOf(512), { until: 'signable', target: 'x86_64-unknown-linux-gnu', versionPrn: version });
    await release(cohort.prn, multi.prn);
    const arm = await fleet.device({ cohortId: cohort.id });
    const answer = await check(arm.prn, { release_prn: r1.prn });
    expect(answer.body).toMatchObject({ status: 'update', bundle_prn: multi.prn });
    expect(answer.body.manifest.map((e: any) => e.binary_prn)).toEqual([multi.binaryPrn]);
    // The x86 device's binary is unsigned: nothing to offer it.
    const x86 = await fleet.device({ cohortId: cohort.id, target: 'x86_64-unknown-linux-gnu' });
    expect((await check(x86.prn, { release_prn: r1.prn })).body.status).toBe('no_update');
    expect(other.binary.state).toBe('signable');
  });
});

describe('bundle overrides', () => {
  const window = (fromMinutes: number, toMinutes: number) => ({
    starts_at: new Date(Date.now() + fromMinutes * 60_000).toISOString(),
    ends_at: new Date(Date.now() + toMinutes * 60_000).toISOString(),
  });

  it('CRUD, ends_at after starts_at, devices add/list/remove', async () => {
    const bundle = await fleet.bundle();
    const bad = await t.api('POST', '/bundle_overrides', { name: 'x', bundle_prn: bundle.prn, ...window(10, 5) });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].context).toMatchObject({ field: 'ends_at', reason: 'not_after_starts_at' });
    const created = await t.api('POST', '/bundle_overrides', { name: 'x', description: 'd', bundle_prn: bundle.prn, ...window(0, 10) });
    expect(created.status).toBe(201);
    const override = created.body.bundle_override;
    expect(override).toMatchObject({ name: 'x', description: 'd', bundle_prn: bundle.prn });
    expect((await t.api('PATCH', `/bundle_overrides/${override.prn}`, { name: 'y' })).body.bundle_override.name).toBe('y');
    expect((await t.api('PATCH', `/bundle_overrides/${override.prn}`, { ends_at: override.starts_at })).status).toBe(422);
    const device = await fleet.device();
    expect((await t.api('POST', `/bundle_overrides/${override.prn}/devices`, { device_prn: device.prn })).status).toBe(201);
    expect((await t.api('POST', `/bundle_overrides/${override.prn}/devices`, { device_prn: device.prn })).status).toBe(409);
    const members = await t.api('GET', `/bundle_overrides/${override.prn}/devices`);
    expect(members.body.devices.map((m: any) => m.device_prn)).toEqual([device.prn]);
    expect((await t.api('DELETE', `/bundle_overrides/${override.prn}/devices/${device.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/bundle_overrides/${override.prn}/devices`)).body.devices).toEqual([]);
    expect((await t.api('DELETE', `/bundle_overrides/${override.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/bundle_overrides/${override.prn}`)).status).toBe(404);
    const other = await t.createOrganization();
    expect((await other.api('POST', '/bundle_overrides', { name: 'x', bundle_prn: bundle.prn, ...window(0, 10) })).status).toBe(422);
  });

  it('ends_at is optional (the public API\'s shape): absent or null, the override never ends', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn);
    const created = await t.api('POST', '/bundle_overrides', { name: 'forever', bundle_prn: b2.prn, starts_at: new Date(Date.now() - 60_000).toISOString() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const open = created.body.bundle_override;
    expect(open.ends_at).toBeNull();
    const device = await fleet.device({ cohortId: cohort.id });
    expect((await t.api('POST', `/bundle_overrides/${open.prn}/devices`, { device_prn: device.prn })).status).toBe(201);
    expect((await check(device.prn, { release_prn: r1.prn })).body).toMatchObject({ status: 'update', source_type: 'bundle_override', source_prn: open.prn });
    // An open window overlaps every later one of the same device.
    const later = (await t.api('POST', '/bundle_overrides', { name: 'later', bundle_prn: b1.prn, ...window(60 * 24 * 365, 60 * 24 * 366) })).body.bundle_override;
    expect((await t.api('POST', `/bundle_overrides/${later.prn}/devices`, { device_prn: device.prn })).body.errors[0].code).toBe('bundle_override_overlap');
    // PATCH may set an end, and take it away again with null.
    const ends = new Date(Date.now() + 60_000).toISOString();
    expect((await t.api('PATCH', `/bundle_overrides/${open.prn}`, { ends_at: ends })).body.bundle_override.ends_at).not.toBeNull();
    expect((await t.api('POST', `/bundle_overrides/${later.prn}/devices`, { device_prn: device.prn })).status).toBe(201);
    expect((await t.api('PATCH', `/bundle_overrides/${open.prn}`, { ends_at: null })).status).toBe(409);
    const explicitNull = await t.api('POST', '/bundle_overrides', { name: 'null end', bundle_prn: b2.prn, starts_at: new Date().toISOString(), ends_at: null });
    expect(explicitNull.body.bundle_override.ends_at).toBeNull();
    expect((await t.api('GET', `/bundle_overrides/${explicitNull.body.bundle_override.prn}`)).body.bundle_override.ends_at).toBeNull();
  });

  it('refuses overlapping windows for one device (409), allows windows that only touch', async () => {
    const bundle = await fleet.bundle();
    const make = async (from: number, to: number) => (await t.api('POST', '/bundle_overrides', { name: 'o', bundle_prn: bundle.prn, ...window(from, to) })).body.bundle_override;
    const first = await make(0, 60);
    const overlapping = await make(30, 90);
    const touching = { ...(await make(0, 1)), starts_at: first.ends_at };
    await t.api('PATCH', `/bundle_overrides/${touching.prn}`, { starts_at: first.ends_at, ends_at: new Date(Date.now() + 120 * 60_000).toISOString() });
    const device = await fleet.device();
    await t.api('POST', `/bundle_overrides/${first.prn}/devices`, { device_prn: device.prn });
    const clash = await t.api('POST', `/bundle_overrides/${overlapping.prn}/devices`, { device_prn: device.prn });
    expect(clash.status).toBe(409);
    expect(clash.body.errors[0]).toMatchObject({ code: 'bundle_override_overlap', context: { bundle_override_prn: first.prn, device_prn: device.prn } });
    expect((await t.api('POST', `/bundle_overrides/${touching.prn}/devices`, { device_prn: device.prn })).status).toBe(201);
    const moved = await t.api('PATCH', `/bundle_overrides/${touching.prn}`, { starts_at: new Date(Date.now() + 30 * 60_000).toISOString() });
    expect(moved.status).toBe(409);
  });
});
