/** Bundles, releases, bundle overrides, webhooks, tunnels and the device/CA helpers through the CLI against a real server. */
import { describe, expect, it } from 'vitest';
import { canopy, canopyOk } from './support/run-canopy';
import { fleetFixtures, prns } from './support/fixtures';
import { useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);

const ok = canopyOk(env);

/** The server lists a bundle override's devices as devices rows carrying device_prn. */
const overrideDevices = (answer: { devices: { device_prn: string }[] }) => answer.devices.map((row) => row.device_prn);
const fixtures = (tag: string) => fleetFixtures(ok, tag);

describe('bundles and releases', () => {
  it('create, get, list, update, delete', async () => {
    const { cohort, version } = await fixtures('rel');
    const bundle = (await ok(['bundles', 'create', '--name', 'base', '--artifact-version-prns', version.prn])).bundle;
    expect(bundle).toMatchObject({ name: 'base' });
    expect((await ok(['bundles', 'get', bundle.prn])).bundle.prn).toBe(bundle.prn);
    expect(prns((await ok(['bundles', 'list', '--all'])).bundles)).toContain(bundle.prn);
    expect((await ok(['bundles', 'update', bundle.prn, '--name', 'base-2'])).bundle.name).toBe('base-2');

    const release = (
      await ok(['releases', 'create', '--bundle-prn', bundle.prn, '--cohort-prn', cohort.prn, '--name', 'r1', '--required', 'false', '--schedule-date', '2025-01-01T00:00:00Z'])
    ).release;
    expect(release).toMatchObject({ name: 'r1' });
    expect((await ok(['releases', 'get', release.prn])).release.prn).toBe(release.prn);
    expect(prns((await ok(['releases', 'list', '--all'])).releases)).toContain(release.prn);
    expect((await ok(['releases', 'update', release.prn, '--description', 'first release'])).release.description).toBe('first release');
    expect((await canopy(['releases', 'delete', release.prn], env)).code).toBe(0);
    expect((await canopy(['releases', 'get', release.prn], env)).code).toBe(1);

    const scratch = (await ok(['bundles', 'create', '--name', 'scratch', '--artifact-version-prns', version.prn])).bundle;
    expect((await canopy(['bundles', 'delete', scratch.prn], env)).code).toBe(0);
    expect((await canopy(['bundles', 'get', scratch.prn], env)).code).toBe(1);
  });
});

describe('bundle overrides', () => {
  it('create, get, list, update, devices add/list/remove, delete', async () => {
    const { device, version } = await fixtures('bo');
    const bundle = (await ok(['bundles', 'create', '--name', 'hotfix', '--artifact-version-prns', version.prn])).bundle;
    const override = (
      await ok(['bundle-overrides', 'create', '--name', 'canary', '--bundle-prn', bundle.prn, '--starts-at', '2025-01-01T00:00:00Z', '--ends-at', '2099-01-01T00:00:00Z'])
    ).bundle_override;
    expect(override).toMatchObject({ name: 'canary' });
    expect((await ok(['bundle-overrides', 'get', override.prn])).bundle_override.prn).toBe(override.prn);
    expect(prns((await ok(['bundle-overrides', 'list', '--all'])).bundle_overrides)).toContain(override.prn);
    expect((await ok(['bundle-overrides', 'update', override.prn, '--name', 'canary-2'])).bundle_override.name).toBe('canary-2');

    expect((await ok(['bundle-overrides', 'devices', 'add', override.prn, '--device-prn', device.prn])).device).toMatchObject({
      bundle_override_prn: override.prn,
      device_prn: device.prn,
    });
    expect(overrideDevices(await ok(['bundle-overrides', 'devices', 'list', override.prn]))).toContain(device.prn);
    expect((await canopy(['bundle-overrides', 'devices', 'remove', override.prn, device.prn], env)).code).toBe(0);
    expect(overrideDevices(await ok(['bundle-overrides', 'devices', 'list', override.prn]))).not.toContain(device.prn);

    expect((await canopy(['bundle-overrides', 'delete', override.prn], env)).code).toBe(0);
    expect((await canopy(['bundle-overrides', 'get', override.prn], env)).code).toBe(1);
  });
});

describe('webhooks', () => {
  it('create disabled, get, list, update, roll-secret, delete', async () => {
    const webhook = (await ok(['webhooks', 'create', '--url', 'https://hooks.example.com/canopy', '--state', 'disabled', '--enabled-events', 'device.release_changed'])).webhook;
    expect(webhook).toMatchObject({ url: 'https://hooks.example.com/canopy', state: 'disabled' });
    expect((await ok(['webhooks', 'get', webhook.prn])).webhook.prn).toBe(webhook.prn);
    expect(prns((await ok(['webhooks', 'list', '--all'])).webhooks)).toContain(webhook.prn);
    expect((await ok(['webhooks', 'update', webhook.prn, '--description', 'ops'])).webhook.description).toBe('ops');
    const rolled = await ok(['webhooks', 'roll-secret', webhook.prn, '--webhook-ttl', '60']);
    expect(rolled.webhook).toMatchObject({ prn: webhook.prn, state: 'disabled' });
    expect(typeof rolled.webhook.secret).toBe('string');
    if (webhook.secret) expect(rolled.webhook.secret).not.toBe(webhook.secret);
    expect((await canopy(['webhooks', 'delete', webhook.prn], env)).code).toBe(0);
    expect((await canopy(['webhooks', 'get', webhook.prn], env)).code).toBe(1);
  });
});

describe('tunnels, devices get-update, ca-certificates verification-code', () => {
  it('tunnels create, get, list, update --state closed', async () => {
    const { device } = await fixtures('tun');
    const tunnel = (await ok(['tunnels', 'create', '--device-prn', device.prn, '--device-tunnel-port', '22', '--ttl', '600'])).tunnel;
    expect(tunnel.prn).toBeTruthy();
    expect((await ok(['tunnels', 'get', tunnel.prn])).tunnel.prn).toBe(tunnel.prn);
    expect(prns((await ok(['tunnels', 'list', '--all'])).tunnels)).toContain(tunnel.prn);
    expect((await ok(['tunnels', 'update', tunnel.prn, '--state', 'closed'])).data.state).toBe('closed');
  });

  it('binary-parts list', async () => {
    const { version } = await fixtures('bin');
    const binary = (
      await ok(['binaries', 'create', '--artifact-version-prn', version.prn, '--target', 'aarch64-unknown-linux-gnu', '--hash', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', '--size', '1024'])
    ).binary;
    const parts = await ok(['binary-parts', 'list', binary.prn]);
    expect(parts.binary_parts).toEqual([]);
  });

  it('devices get-update', async () => {
    const { device } = await fixtures('upd');
    const answer = await ok(['devices', 'get-update', device.prn, '--release-version', '0.1.0']);
    expect(answer).toMatchObject({ status: 'no_update', bundle_prn: null });
  });

  it('ca-certificates verification-code', async () => {
    const answer = await ok(['ca-certificates', 'verification-code']);
    expect(typeof answer.verification_code).toBe('string');
  });
});
