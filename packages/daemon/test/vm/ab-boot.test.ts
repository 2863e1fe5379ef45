/**
 * A real device in CI: a QEMU machine booting GRUB from an MBR disk with two root slots, whose
 * init runs the bundled canopy-daemon (avocado-ab installer, grub_environment backend) against a
 * real Canopy server on the host over the device API's mutual TLS. The daemon writes the new root
 * file system to the other slot, switches grubenv, the machine really reboots, GRUB counts the
 * trial boot, and the daemon's health check on the new slot decides. Opt-in (CANOPY_VM_TEST=1,
 * set by .ci/run's VM stage); images from vm-image.ts, console log printed on failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { loadConfig } from '../../../server/src/config';
import { freePort } from '../../../server/test/support/server-process';
import { startTestServer, type TestServer } from '../../../server/test/support/server';
import { bundleDaemon, createCohort, createFleet, createSigner, DAEMON_BUNDLE, enrollDevice, eventually, publishRelease, removeTemporaryDirs, temporaryDir, updateReports, type Fleet, type Signer } from '../support/harness';
import { copyDisk, guestConfig, makeDataDisk, readGrubenv } from './guest-disks';
import { fencedBlocks } from '../../../../site/test/helpers/shellBlocks';
import { validateConfig } from '../../src/config/schema';
import { DAEMON_ROOT } from '../support/harness';
import { Vm } from './vm';
import { vmImages, vmUnavailable, type VmImages } from './vm-image';

const unavailable = process.env.CANOPY_VM_TEST === '1' ? vmUnavailable() : 'opt-in: CANOPY_VM_TEST=1 (.ci/run runs it as its own stage)';
/** From a release being published to the report it ends in: download, write, verify, reboot, check. */
const SCENARIO_TIMEOUT = 360_000;

let t: TestServer;
let fleet: Fleet;
let signer: Signer;
let images: VmImages;
let work: string;
const vms: Vm[] = [];

beforeAll(async () => {
  if (unavailable) return;
  bundleDaemon();
  images = vmImages(DAEMON_BUNDLE);
  console.log(`VM images ${images.buildSeconds ? `built in ${images.buildSeconds.toFixed(0)} s` : 'from the cache'}: ${images.dir}`);
  // The guest reaches the host as 10.0.2.2 (QEMU user-mode networking): the device API's
  // certificate must name it, and download URLs (the public URL) must point there.
  const adminPort = await freePort();
  t = await startTestServer({ adminPort, publicUrl: `http://10.0.2.2:${adminPort}`, deviceTls: { ...loadConfig({}).deviceTls, hostnames: ['10.0.2.2'] } });
  fleet = await createFleet(t.api, 'vm');
  signer = await createSigner(t.api, temporaryDir(), 'vm');
  work = temporaryDir('canopy-vm-run-');
}, 900_000);
afterAll(async () => {
  for (const vm of vms.splice(0)) await vm.stop();
  await t?.close();
  removeTemporaryDirs();
});

/** A device enrolled in its own cohort, and a machine for it booted on slot a (v1). */
async function bootDevice(name: string) {
  const cohort = await createCohort(t.api, fleet, name);
  const device = await enrollDevice(t, fleet, cohort, name);
  const disk = path.join(work, `${name}.img`);
  const data = path.join(work, `${name}-data.img`);
  copyDisk(images.disk, disk);
  const port = new URL(t.deviceUrl).port;
  makeDataDisk(data, device, signer.publicPath, guestConfig(`https://10.0.2.2:${port}`), 640);
  const vm = new Vm(disk, data, path.join(work, `${name}-console.log`));
  vms.push(vm);
  onTestFailed(() => console.log(`--- serial console of ${name} (${vm.consoleLog})\n${fs.readFileSync(vm.consoleLog, 'utf8')}`));
  return { cohort, device, disk, vm };
}

const rootfsRelease = (cohort: string, image: 'v2-good' | 'v2-bad', name: string) =>
  publishRelease(t.api, cohort, fs.readFileSync(images.rootfs(image)), { canopy: { installer: 'avocado-ab', reboot_required: true } }, [signer], name, t.url);

/** The report statuses with repeats folded (downloading is reported with progress, several times). */
const statuses = (reports: Array<{ status: string }>) => reports.map((r) => r.status).filter((s, i, all) => s !== all[i - 1]);

async function lastReport(devicePrn: string, status: string, timeoutMs: number) {
  return eventually(async () => {
    const list = await updateReports(t.api, devicePrn);
    return list.at(-1)?.status === status ? list : null;
  }, `the ${status} report`, timeoutMs);
}

const DOCS_PAGE = 'site/docs/canopy-core/tools/canopy-daemon/grub-environment.md';

describe('the GRUB environment docs page (grub-environment.md)', () => {
  const blocks = fencedBlocks(DOCS_PAGE, fs.readFileSync(path.join(DAEMON_ROOT, '../..', DOCS_PAGE), 'utf8'));
  it('shows the grub.cfg this test boots, and a grub_environment the daemon accepts', () => {
    expect(blocks.find((b) => b.lang === 'text')!.code.trim()).toBe(fs.readFileSync(path.join(__dirname, 'grub.cfg'), 'utf8').trim());
    const fragment = JSON.parse(blocks.find((b) => b.lang === 'json')!.code);
    const config = validateConfig({ ...guestConfig('https://10.0.2.2:4001'), grub_environment: undefined, avocado_ab: undefined, ...fragment });
    expect(config.grub_environment).toEqual({ file: '/boot-env/grub/grubenv', variables: { active_slot: 'canopy_active_slot', upgrade_available: 'canopy_upgrade_available', boot_count: 'canopy_boot_count', boot_limit: 'canopy_boot_limit' } });
    expect(() => validateConfig({ ...guestConfig('https://10.0.2.2:4001'), grub_environment: { file: 'grubenv' } })).toThrow(/grub_environment\.file/);
  });
});

describe.skipIf(unavailable)(`a QEMU machine with GRUB and two root slots${unavailable ? ` (${unavailable})` : ''}`, () => {
  it('installs a new root file system, reboots into the other slot, confirms it and reports installed', async () => {
    const started = Date.now();
    const d = await bootDevice('vm-good');
    await d.vm.waitFor(/canopy-vm: booted slot=a image=v1/, 'the first boot on slot a', 120_000);
    const booted = (Date.now() - started) / 1000;
    const published = Date.now();
    const release = await rootfsRelease(d.cohort, 'v2-good', 'vm-good-rootfs');

    await d.vm.waitFor(/canopy: booting slot b/, 'GRUB booting slot b', SCENARIO_TIMEOUT);
    await d.vm.waitFor(/canopy-vm: booted slot=b image=v2-good/, 'the new root file system running', 60_000);
    await d.vm.waitFor(/health check on v2-good exits 0/, 'the health check of the new slot', 120_000);
    const reports = await lastReport(d.device.prn, 'installed', 120_000);
    const toInstalled = (Date.now() - published) / 1000;
    expect(statuses(reports)).toEqual(['downloading', 'installing', 'rebooting', 'installed']);
    expect(reports.every((r) => r.release === release.releasePrn)).toBe(true);
    await eventually(async () => (await t.api('GET', `/devices/${d.device.prn}`)).body.device.reported_release_prn === release.releasePrn, 'the reported release', 60_000);
    await d.vm.stop();
    // GRUB's next boot: slot b, permanent (no trial pending).
    const env = readGrubenv(d.disk);
    expect(env.get('canopy_active_slot')).toBe('b');
    expect(env.has('canopy_upgrade_available')).toBe(false);
    console.log(`vm-good: first boot ${booted.toFixed(0)} s, release published to installed ${toInstalled.toFixed(0)} s`);
  }, SCENARIO_TIMEOUT + 300_000);

  it('falls back to the old slot when the new one fails its health check, and reports rolled_back', async () => {
    const started = Date.now();
    const d = await bootDevice('vm-bad');
    await d.vm.waitFor(/canopy-vm: booted slot=a image=v1/, 'the first boot on slot a', 120_000);
    const published = Date.now();
    const release = await rootfsRelease(d.cohort, 'v2-bad', 'vm-bad-rootfs');

    await d.vm.waitFor(/canopy-vm: booted slot=b image=v2-bad/, 'the new root file system running', SCENARIO_TIMEOUT);
    await d.vm.waitFor(/health check on v2-bad exits 1/, 'the failing health check', 120_000);
    // The daemon sends GRUB back to slot a and reboots: v1 runs again.
    await d.vm.waitFor(/canopy-vm: booted slot=a image=v1/, 'the old slot running again', 120_000, 2);
    const reports = await lastReport(d.device.prn, 'rolled_back', 120_000);
    const toRolledBack = (Date.now() - published) / 1000;
    expect(statuses(reports)).toEqual(['downloading', 'installing', 'rebooting', 'rolled_back']);
    expect(reports.at(-1)).toMatchObject({ release: release.releasePrn, reason: 'health_check_failed: health_check exited with 1' });
    // Back on v1, the daemon holds the failed release back instead of installing it again.
    await d.vm.waitFor(/"msg":"update held back"/, 'the hold on the failed release', 120_000);
    await d.vm.stop();
    const env = readGrubenv(d.disk);
    expect(env.get('canopy_active_slot')).toBe('a');
    expect(env.has('canopy_upgrade_available')).toBe(false);
    console.log(`vm-bad: release published to rolled_back ${toRolledBack.toFixed(0)} s (scenario ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }, SCENARIO_TIMEOUT + 300_000);
});
