/**
 * The TUF repository's admin and device API: roots committed only with both thresholds, targets
 * only when signed by the keys the root (or the delegating targets) names, snapshot and
 * timestamp signed by the server's sealed online keys, posture from the devices' root requests.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Key, Metadata, MetadataKind } from '@tufjs/models';
import { buildRoot, buildTopTargets, generateTufKey, signWith, withReleaseTargets, type TufKeyPair } from '@canopy/sdk/tuf';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';
import { AUDITED_IN_TUF_TEST } from '../support/audited-elsewhere';

const t = useTestServer();
const enroll = deviceEnrollment(t);

const rootKeys = [generateTufKey(), generateTufKey(), generateTufKey()];
const targetsKey = generateTufKey();
const releaseKey = generateTufKey();
let online: { snapshot: Key; timestamp: Key };
let device: EnrolledDevice;

const one = (pair: TufKeyPair) => ({ keys: [pair.key], threshold: 1 });
function root(version: number, keys: TufKeyPair[], threshold: number, onlineKeys = online) {
  return buildRoot({ version, root: { keys: keys.map((k) => k.key), threshold }, targets: one(targetsKey), snapshot: { keys: [onlineKeys.snapshot], threshold: 1 }, timestamp: { keys: [onlineKeys.timestamp], threshold: 1 } });
}

beforeAll(async () => {
  device = await enroll.device(t);
});

describe('TUF repository', () => {
  it('refuses targets before a root, and a root naming online keys the server does not hold', async () => {
    const top = signWith(buildTopTargets(1, []), [targetsKey]);
    expectFieldError(await t.api('PUT', '/tuf/metadata/targets', { metadata: top.toJSON() }), 'role', 'no_trusted_root');
    const foreign = { snapshot: generateTufKey().key, timestamp: generateTufKey().key };
    expectFieldError(await t.api('PUT', '/tuf/root', { root: signWith(root(1, rootKeys.slice(0, 1), 1, foreign), rootKeys.slice(0, 1)).toJSON() }), 'root', 'online_keys_not_held');
    expectFieldError(await t.api('PUT', '/tuf/root', { root: { signed: {} } }), 'root', 'invalid_metadata');
  });

  it('seals the online keys it creates and commits a self-signed first root', async () => {
    const created = await t.api('POST', '/tuf/online_keys');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    online = { snapshot: Key.fromJSON(created.body.data.snapshot.keyid, created.body.data.snapshot.key), timestamp: Key.fromJSON(created.body.data.timestamp.keyid, created.body.data.timestamp.key) };
    const stored = await t.server.platform.db.execute(`select sealed_private_key from tuf_online_keys where organization_id = '${t.organizationId}'`);
    const sealed = ((stored as any).rows as { sealed_private_key: string }[]).map((row) => row.sealed_private_key);
    expect(sealed).toHaveLength(2);
    for (const value of sealed) expect(value).toMatch(/^v1\./);

    expectFieldError(await t.api('PUT', '/tuf/root', { root: root(1, rootKeys.slice(0, 1), 1).toJSON() }), 'signatures', 'threshold_not_met');
    const readKey = await t.keyWithRole('write');
    expect((await t.api('PUT', '/tuf/root', { root: signWith(root(1, rootKeys.slice(0, 1), 1), rootKeys.slice(0, 1)).toJSON() }, { key: readKey })).status).toBe(403);
    const committed = await t.api('PUT', '/tuf/root', { root: signWith(root(1, rootKeys.slice(0, 1), 1), rootKeys.slice(0, 1)).toJSON() });
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect(committed.body.data.version).toBe(1);
  });

  it('publishes targets and a product delegation, with a snapshot and timestamp signed by the online keys', async () => {
    const top = buildTopTargets(1, [{ product: 'gateway', keys: [releaseKey.key], threshold: 1 }]);
    expectFieldError(await t.api('PUT', '/tuf/metadata/targets', { metadata: signWith(top, [releaseKey]).toJSON() }), 'signatures', 'threshold_not_met');
    const topSigned = signWith(buildTopTargets(1, [{ product: 'gateway', keys: [releaseKey.key], threshold: 1 }]), [targetsKey]);
    expect((await t.api('PUT', '/tuf/metadata/targets', { metadata: topSigned.toJSON() })).status).toBe(200);
    expectFieldError(await t.api('PUT', '/tuf/metadata/targets', { metadata: topSigned.toJSON() }), 'metadata', 'version_not_increased');

    const release = withReleaseTargets(null, 'gateway', 'prn:1:org:release:r1', [{ name: 'rootfs', sha256: 'a'.repeat(64), length: 10, custom: { installer: 'rauc' } }]);
    expectFieldError(await t.api('PUT', '/tuf/metadata/sensor', { metadata: signWith(release, [releaseKey]).toJSON() }), 'role', 'not_delegated');
    expectFieldError(await t.api('PUT', '/tuf/metadata/gateway', { metadata: signWith(withReleaseTargets(null, 'gateway', 'r', []), [targetsKey]).toJSON() }), 'signatures', 'threshold_not_met');
    const published = await t.api('PUT', '/tuf/metadata/gateway', { metadata: signWith(release, [releaseKey]).toJSON() });
    expect(published.status, JSON.stringify(published.body)).toBe(200);

    const trusted = Metadata.fromJSON(MetadataKind.Root, (await device.api('GET', '/tuf/1.root.json')).body);
    const timestamp = await device.api('GET', '/tuf/timestamp.json');
    expect(timestamp.status).toBe(200);
    expect(() => trusted.verifyDelegate('timestamp', Metadata.fromJSON(MetadataKind.Timestamp, timestamp.body))).not.toThrow();
    const snapshot = Metadata.fromJSON(MetadataKind.Snapshot, (await device.api('GET', '/tuf/snapshot.json')).body);
    expect(() => trusted.verifyDelegate('snapshot', snapshot)).not.toThrow();
    expect(Object.fromEntries(Object.entries(snapshot.signed.meta).map(([file, meta]) => [file, meta.version]))).toEqual({ 'targets.json': 1, 'gateway.json': 1 });
    expect(timestamp.body.signed.meta['snapshot.json'].version).toBe(snapshot.signed.version);
    expect((await device.api('GET', '/tuf/gateway.json')).body.signed.targets['gateway/prn:1:org:release:r1/rootfs'].custom).toEqual({ installer: 'rauc' });
    expect((await device.api('GET', '/tuf/nothing.json')).status).toBe(404);
  });

  it('commits a proposed root only when the previous and the new thresholds are met', async () => {
    const proposed = root(2, rootKeys, 2);
    const created = await t.api('POST', '/tuf/root_proposals', { root: proposed.toJSON() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.thresholds_met).toEqual({ previous_root: false, new_root: false });
    expectFieldError(await t.api('POST', '/tuf/root_proposals/2/commit'), 'signatures', 'threshold_not_met');

    const sign = (pair: TufKeyPair) => {
      const copy = Metadata.fromJSON(MetadataKind.Root, proposed.toJSON());
      signWith(copy, [pair]);
      return { keyid: pair.key.keyID, sig: copy.signatures[pair.key.keyID].sig };
    };
    expectFieldError(await t.api('PUT', '/tuf/root_proposals/2/signatures', { signatures: [{ keyid: rootKeys[1].key.keyID, sig: 'ab'.repeat(64) }] }), 'signatures[0]', 'invalid_signature');
    const second = await t.api('PUT', '/tuf/root_proposals/2/signatures', { signatures: [sign(rootKeys[1])] });
    expect(second.body.data.thresholds_met).toEqual({ previous_root: false, new_root: false });
    // Two of the new root's keys, but not the previous root's one key: still refused.
    await t.api('PUT', '/tuf/root_proposals/2/signatures', { signatures: [sign(rootKeys[2])] });
    expect((await t.api('POST', '/tuf/root_proposals/2/commit')).body.errors[0].context).toMatchObject({ field: 'signatures', of: 'previous_root' });
    expect((await t.api('PUT', '/tuf/root_proposals/2/signatures', { signatures: [sign(rootKeys[0])] })).body.data.thresholds_met).toEqual({ previous_root: true, new_root: true });
    const committed = await t.api('POST', '/tuf/root_proposals/2/commit');
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect((await device.api('GET', '/tuf/2.root.json')).status).toBe(200);
    expect((await device.api('GET', '/tuf/3.root.json')).status).toBe(404);
  });

  it('shows the trust posture from the root versions devices ask for, per organization', async () => {
    const second = await enroll.device(t);
    await second.api('GET', '/tuf/2.root.json');
    const posture = await t.api('GET', '/tuf/posture');
    expect(posture.body.data).toMatchObject({ current_root_version: 2, root_versions: [{ version: 1, devices: 1 }, { version: 2, devices: 1 }], stale_devices: 1, stale: [{ device_prn: second.prn, root_version: 1, reported_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }] });
    const other = await t.createOrganization();
    expect((await other.api('GET', '/tuf/posture')).body.data).toEqual({ current_root_version: null, root_versions: [], stale_devices: 0, stale: [] });
    expect((await other.api('GET', '/tuf/metadata/targets.json')).status).toBe(404);
    // The versions of this organization's root and its proposals are nothing to another one.
    expect((await other.api('GET', '/tuf/root_proposals/2')).status).toBe(404);
    expect((await other.api('PUT', '/tuf/root_proposals/2/signatures', { signatures: [{ keyid: 'a'.repeat(64), sig: 'b'.repeat(128) }] })).status).toBe(404);
    expect((await other.api('POST', '/tuf/root_proposals/2/commit')).status).toBe(404);
    expect((await t.api('GET', '/tuf/metadata/targets.json')).status).toBe(200);
  });

  it('records one audit event for each of its writes, naming the operation and the admin', async () => {
    const me = (await t.api('GET', '/users/me')).body.data.prn;
    const audits = (await t.api('GET', '/events?type=audit&limit=100')).body.events as { actor_prn: string; data: { data: { operation: string } } }[];
    const operations = new Set(audits.filter((e) => e.actor_prn === me).map((e) => e.data.data.operation));
    expect(AUDITED_IN_TUF_TEST.filter((operation) => !operations.has(operation)), [...operations].join(', ')).toEqual([]);
  });
});
