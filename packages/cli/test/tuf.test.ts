/**
 * The offline TUF steps through the CLI against a real server: keys created locally (0600) and
 * never sent, a root created, signed and committed, a rotation by proposal, a product delegated
 * and revoked, a release's binaries signed as targets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetFixtures } from './support/fixtures';
import { canopy, canopyOk } from './support/run-canopy';
import { temporaryConfigDir, useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);

describe('canopy tuf', () => {
  it('creates, signs, commits and rotates a root; delegates a product; signs a release as targets', async () => {
    const dir = temporaryConfigDir();
    const key = (name: string) => path.join(dir, `${name}.pem`);
    await ok(['tuf', 'online-keys', 'create']);
    const created = await ok(['tuf', 'root', 'create', '--out', path.join(dir, 'root.json'), '--root-key', key('root-1'), '--targets-key', key('targets')]);
    expect(created.version).toBe(1);
    expect(fs.statSync(key('root-1')).mode & 0o777).toBe(0o600);
    expect((await canopy(['tuf', 'root', 'commit', path.join(dir, 'root.json')], env)).code).toBe(1);
    await ok(['tuf', 'root', 'sign', path.join(dir, 'root.json'), '--key', key('root-1')]);
    expect((await ok(['tuf', 'root', 'commit', path.join(dir, 'root.json')])).data.version).toBe(1);

    // Rotation to two root keys, threshold 2: the old key and both new ones sign the proposal.
    await ok(['tuf', 'online-keys', 'list']);
    await ok(['tuf', 'root', 'create', '--out', path.join(dir, 'root-2.json'), '--root-key', key('root-2'), '--root-key', key('root-3'), '--root-threshold', '2', '--targets-key', key('targets')]);
    expect((await ok(['tuf', 'root', 'propose', path.join(dir, 'root-2.json')])).data.thresholds_met).toEqual({ previous_root: false, new_root: false });
    await ok(['tuf', 'root', 'sign-proposal', '--proposal', '2', '--key', key('root-1'), '--key', key('root-2')]);
    expect((await canopy(['tuf', 'root', 'commit', '--proposal', '2'], env)).code).toBe(1);
    await ok(['tuf', 'root', 'sign-proposal', '--proposal', '2', '--key', key('root-3')]);
    expect((await ok(['tuf', 'root', 'commit', '--proposal', '2'])).data.version).toBe(2);

    const release = await ok(['tuf', 'key', 'generate', '--out', key('release')]);
    await ok(['tuf', 'delegate', 'add', '--product', 'gateway', '--release-key', key('release'), '--targets-key', key('targets')]);

    const { cohort, version } = await fleetFixtures(ok, 'tuf');
    const binary = (await server.api('POST', '/binaries', { artifact_version_prn: version.prn, hash: 'ab'.repeat(32), size: 4096, target: 'aarch64-linux' })).body.binary;
    // More binaries than one page of the list holds (100): every one is signed.
    for (let i = 0; i < 100; i++) {
      expect((await server.api('POST', '/binaries', { artifact_version_prn: version.prn, hash: i.toString(16).padStart(64, '0'), size: 1000 + i, target: `board-${i}` })).status).toBe(201);
    }
    const bundle = (await ok(['bundles', 'create', '--name', 'tuf-b1', '--artifact-version-prns', version.prn])).bundle;
    const releasePrn = (await ok(['releases', 'create', '--bundle-prn', bundle.prn, '--cohort-prn', cohort.prn, '--required', 'false', '--schedule-date', '2025-01-01T00:00:00Z', '--name', 'r1'])).release.prn;
    const signed = await ok(['tuf', 'targets', 'sign', '--release', releasePrn, '--product', 'gateway', '--key', key('release')]);
    const target = signed.data.metadata.signed.targets[`gateway/${releasePrn}/${binary.prn}`];
    expect(Object.keys(signed.data.metadata.signed.targets).filter((name) => name.startsWith(`gateway/${releasePrn}/`))).toHaveLength(101);
    expect(target).toMatchObject({ length: 4096, hashes: { sha256: 'ab'.repeat(32) }, custom: { target: 'aarch64-linux', artifact_version_prn: version.prn } });

    await ok(['tuf', 'delegate', 'revoke', '--product', 'gateway', '--keyid', release.keyid, '--targets-key', key('targets')]);
    // The revoked key's signature no longer counts: the next targets it signs are refused.
    expect((await canopy(['tuf', 'targets', 'sign', '--release', releasePrn, '--product', 'gateway', '--key', key('release')], env)).code).toBe(1);
    const posture = await ok(['tuf', 'posture']);
    expect(posture.data.current_root_version).toBe(2);
    // No private key left this machine: the server's tables hold none of the local keyids' PEMs.
    const stored = JSON.stringify(await server.server.platform.db.execute('select body from tuf_metadata'));
    expect(stored).not.toContain('PRIVATE KEY');
  });
});
