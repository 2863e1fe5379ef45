/**
 * The fleet simulator: many virtual devices in one process, each with its own certificate
 * (admitted by JITP on its first connection), its own state and download dirs, its own
 * kept-alive mutual-TLS connection, and the daemon's own update agent (update/agent.ts: the same
 * check, download, verify, install and report code), with installers that write into the
 * device's directory (installers.ts). It publishes a release to the fleet's cohort, runs every
 * device until all of them run it (or the time limit passes), printing progress every second,
 * and answers a summary: devices per state and the time to converge. `startFleet` keeps the
 * fleet running for more releases (bench/fleet.ts: enrolling 10,000 devices once, not per release).
 */
import { createDeviceClient, type DeviceClient } from '@canopy/sdk/device';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DaemonConfig } from '../config/types.ts';
import { silentLogger, createLogger, type Logger } from '../log.ts';
import { createUpdateAgent } from '../update/agent.ts';
import type { DaemonState, UpdateEvent } from '../update/state.ts';
import { createStateStore } from '../update/state-store.ts';
import { issueLeaf } from './certificates.ts';
import { adminApi, organizationSigningKeys, publishRelease, serverOnRelease, setUpFleet, type AdminApi, type SimulatedFleet, type SimulatedRelease } from './fleet-setup.ts';
import { failuresOfDevice, isFaulty, soakFailureOfDevice, virtualInstallers, type InstallFailures, type SoakFailures } from './installers.ts';

export interface FleetOptions {
  adminUrl: string;
  apiKey: string;
  deviceUrl: string;
  /** The device API's server CA (what devices pin). */
  serverCaPem: string;
  devices: number;
  /** Seconds between a device's checks, and the random extra up to `jitterSeconds`. */
  pollSeconds: number;
  jitterSeconds: number;
  binarySize: number;
  /** Where the devices' directories go (a fresh one per run). */
  workDir: string;
  /** Progress and summary lines. */
  write: (line: string) => void;
  /** JSON-lines logs of every device (noisy); off by default. */
  verbose?: boolean;
  /** Devices enrolling at once (ENROLLING_AT_ONCE by default). */
  enrollingAtOnce?: number;
  /** Faulty devices, whose installs fail (installers.ts); none by default. */
  installFailures?: InstallFailures;
  /** Devices whose health check fails during a release's soak (installers.ts soakFailureOfDevice); none by default. */
  soakFailures?: SoakFailures;
  /** A share of the fleet (spread as installers.ts isFaulty) whose daemon asks this readiness command before each offered update. */
  readiness?: { share: number; command: string[] };
  /** Every saved transition of every device, with the device's index in the fleet. */
  onTransition?: (index: number, state: DaemonState, event: UpdateEvent) => void;
  /** Join this existing cohort (JITP into it) instead of making a product and cohort. */
  cohortPrn?: string;
  /** Trust every signing key of the organization (to install releases the simulator did not sign). */
  trustOrganizationKeys?: boolean;
  /** Whether devices take the deltas the server offers (default true), as the daemon does. */
  deltas?: boolean;
}

export interface ReleaseOptions {
  /**
   * The release's phases, fractions of the cohort in (0, 1]: it is published at the first, and
   * moved to the next once that share of the fleet runs it (`[0.1, 1]`: 10%, then everyone).
   * Default `[1]`.
   */
  phases?: number[];
  timeoutSeconds: number;
  /** More fields of the release to publish (a concurrency cap, say). */
  fields?: Record<string, unknown>;
  /** Watch this existing release (of the fleet's cohort) instead of publishing one; its phase stays as it is. */
  releasePrn?: string;
  /**
   * Publish the previous release's binary with this fraction of its 4 KiB blocks rewritten, as a
   * new version of its artifact, so the server makes a delta that devices running it can take.
   */
  changeOfLast?: number;
}

/** Bytes the devices fetched during a release, against the binaries' full size (update/state.ts Transfers). */
export interface FleetTransfers {
  fullBytes: number;
  wireBytes: number;
  deltasUsed: number;
  deltaFallbacks: number;
}

export interface SimulateOptions extends FleetOptions, ReleaseOptions {
  /**
   * Goes on once the release converged, the devices still running (a scenario that publishes
   * more releases); the devices stop when it resolves.
   */
  afterConverged?: (run: { api: AdminApi; fleet: SimulatedFleet; release: SimulatedRelease }) => Promise<void>;
}

export interface ReleaseOutcome {
  releasePrn: string;
  /** The release as published (its bundle, the binary's size). */
  published: SimulatedRelease;
  /** Devices per phase at the end; `installed` counts those running the release. */
  phases: Record<string, number>;
  installed: number;
  /** `failed` and `rolled_back` reports during this release. */
  failedReports: number;
  convergeSeconds: number | null;
  /** Seconds from publishing to each phase's convergence (null for a phase that never converged). */
  phaseSeconds: (number | null)[];
  /** Devices the server counts on the release at the end (their checks reported it). */
  serverOnRelease: number;
  transfers: FleetTransfers;
}

export interface SimulationSummary extends ReleaseOutcome {
  devices: number;
  enrollSeconds: number;
}

/** A simulated fleet whose devices run until `stop`, to which releases are published one after another. */
export interface RunningFleet {
  cohortPrn: string;
  /** The admin API and the fleet's setup, for scenarios that publish releases of their own. */
  api: AdminApi;
  setup: SimulatedFleet;
  enrollSeconds: number;
  /** Publishes a release (version 1.0.0, then 2.0.0...) and waits until its phases converge or time runs out. */
  release(options: ReleaseOptions): Promise<ReleaseOutcome>;
  stop(): Promise<void>;
}

interface VirtualDevice {
  identifier: string;
  client: DeviceClient;
  state: DaemonState | null;
}

/** One release to a fresh fleet (or an existing cohort and release): what `npm run simulate` runs. */
export async function simulate(options: SimulateOptions): Promise<SimulationSummary> {
  const fleet = await startFleet({ ...options, trustOrganizationKeys: options.trustOrganizationKeys ?? options.releasePrn !== undefined });
  try {
    const outcome = await fleet.release(options);
    if (outcome.convergeSeconds !== null) await options.afterConverged?.({ api: fleet.api, fleet: fleet.setup, release: outcome.published });
    return { devices: options.devices, enrollSeconds: fleet.enrollSeconds, ...outcome };
  } finally {
    await fleet.stop();
  }
}

/**
 * Devices enrolling at once, by default: a device counts as enrolled once its first check was
 * answered (its JITP admission included). A window rather than a rate follows the server's pace:
 * a loaded server admits fewer a second and no device waits past its request timeout, where
 * starting every device at once (or one after another, each polling while the next is made)
 * piled thousands of first handshakes and admissions on the server, which answered none in time.
 */
export const ENROLLING_AT_ONCE = 32;

/**
 * Enrols the fleet's devices, `enrollingAtOnce` at a time (each: its certificate made, its update
 * loop started, its first check answered), and leaves every update loop running.
 */
export async function startFleet(options: FleetOptions): Promise<RunningFleet> {
  const api = adminApi(options.adminUrl, options.apiKey);
  const name = `simulated-${Date.now().toString(36)}`;
  const started = Date.now();
  const fleet = await setUpFleet(api, name, options.cohortPrn);
  const trustedKeys = options.trustOrganizationKeys ? await organizationSigningKeys(api) : [{ id: 'simulator', key: fleet.signingKey.publicKey }];
  const baseLog: Logger = options.verbose ? createLogger({ level: 'info' }) : silentLogger;
  const devices: VirtualDevice[] = [];
  let failedReports = 0;
  const controller = new AbortController();
  // Every device's sleep listens to this one signal: thousands of listeners are expected.
  setMaxListeners(0, controller.signal);
  const runs: Promise<unknown>[] = [];
  // A device that has not checked in after this long frees its place in the window (its loop
  // goes on retrying): a server that refuses it must not stall the whole enrolment.
  const firstCheckWaitMs = Math.max(60, 4 * (options.pollSeconds + options.jitterSeconds)) * 1000;

  async function enroll(i: number): Promise<void> {
    const identifier = `${name}-${String(i).padStart(6, '0')}`;
    const certificate = await issueLeaf(fleet.ca, identifier);
    const dir = path.join(options.workDir, identifier);
    const config: DaemonConfig = {
      device_api: { url: options.deviceUrl, certificate_path: '/simulated', private_key_path: '/simulated' },
      update_poll_interval: options.pollSeconds,
      update_jitter: options.jitterSeconds,
      trusted_signing_keys: ['/simulated'],
      signature_threshold: 1,
      bundle_signature_threshold: 0,
      download_dir: path.join(dir, 'downloads'),
      state_dir: path.join(dir, 'state'),
      install_timeout: 600,
      reboot_command: ['true'],
      remote_access_tunnels: { enabled: false, port_ranges: ['22'], cidr_blocks: [] },
      tunnel_poll_interval: 10,
      // The virtual installers read their installs back (installers.ts), so no kept copy is needed.
      deltas: { enabled: options.deltas ?? true, keep_base: false, zstd: 'zstd' },
      log_level: 'info',
      ...(options.readiness && isFaulty(i, options.readiness.share) ? { readiness_command: options.readiness.command, readiness_timeout: 10 } : {}),
    };
    const client = createDeviceClient({ baseUrl: options.deviceUrl, certPem: certificate.certPem, keyPem: certificate.keyPem, caPem: options.serverCaPem });
    const device: VirtualDevice = { identifier, client, state: null };
    const log = baseLog.child({ device: identifier });
    const soakFails = soakFailureOfDevice(options.soakFailures, i);
    let checkedIn!: () => void;
    const firstCheck = new Promise<void>((resolve) => (checkedIn = resolve));
    const agent = createUpdateAgent({
      config,
      trustedKeys,
      client,
      installers: virtualInstallers(dir, failuresOfDevice(options.installFailures, i)),
      store: createStateStore(config.state_dir, log),
      log,
      // A virtual reboot: the device is up again at once, in this process.
      reboot: async () => true,
      healthCheck: async () => (soakFails?.(device.state?.running.release_version ?? null) ? { ok: false, reason: 'simulated health check failure during the soak' } : { ok: true }),
      onTransition: (state, event) => {
        device.state = state;
        if (event.type === 'checked') checkedIn();
        options.onTransition?.(i, state, event);
        if (event.type === 'failed' || event.type === 'rolled_back') failedReports++;
      },
    });
    devices.push(device);
    const run = agent.run(controller.signal).catch((error) => {
      options.write(`${identifier}: ${(error as Error).message}`);
    });
    runs.push(run);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([firstCheck, run, new Promise((resolve) => (timer = setTimeout(resolve, firstCheckWaitMs)))]);
    clearTimeout(timer);
  }

  let next = 0;
  let enrolled = 0;
  const windowSize = Math.max(1, options.enrollingAtOnce ?? ENROLLING_AT_ONCE);
  await Promise.all(
    Array.from({ length: Math.min(windowSize, options.devices) }, async () => {
      while (next < options.devices && !controller.signal.aborted) {
        await enroll(next++);
        enrolled++;
        if (enrolled % 1000 === 0 && enrolled < options.devices) options.write(`${enrolled} of ${options.devices} virtual devices enrolled`);
      }
    }),
  );
  const enrollSeconds = (Date.now() - started) / 1000;
  options.write(`${options.devices} virtual devices enrolled in ${enrollSeconds.toFixed(1)} s (cohort ${fleet.cohortPrn})`);

  let releases = 0;
  return {
    cohortPrn: fleet.cohortPrn,
    api,
    setup: fleet,
    enrollSeconds,
    async release(release: ReleaseOptions): Promise<ReleaseOutcome> {
      const phases = release.releasePrn || !release.phases?.length ? [1] : release.phases;
      const failedBefore = failedReports;
      releases++;
      const published = release.releasePrn
        ? await existingRelease(api, release.releasePrn)
        : await publishRelease(api, fleet, {
            size: options.binarySize,
            version: `${releases}.0.0`,
            phaseValue: phases[0] < 1 ? phases[0] : undefined,
            changeOfLast: release.changeOfLast,
            // Held back until its delta is made, so every device is offered the delta, not only late ones.
            release: { ...release.fields, ...(release.changeOfLast !== undefined ? { schedule_date: new Date(Date.now() + 3_600_000).toISOString() } : {}) },
          });
      if (!release.releasePrn && release.changeOfLast !== undefined) {
        const made = await deltaMade(api, published.binaryPrn!, Date.now() + release.timeoutSeconds * 1000);
        options.write(`delta ${made.state}: ${made.size ?? '-'} bytes for ${published.size}`);
        await api('PATCH', `/releases/${published.releasePrn}`, { schedule_date: null });
      }
      const transfersBefore = fleetTransfers(devices);
      const releasedAt = Date.now();
      // Devices of an existing cohort may run the release already: the server's count starts there.
      const onReleaseBefore: number = (await api('GET', `/releases/${published.releasePrn}/rollout`)).rollout.on_release;
      options.write(release.releasePrn ? `watching release ${published.releasePrn}` : `release ${published.releasePrn} (${published.size} bytes) published`);

      const count = () => {
        const counted: Record<string, number> = { idle: 0, downloading: 0, verifying: 0, installing: 0, rebooting: 0, confirming: 0, installed: 0 };
        for (const device of devices) {
          const state = device.state;
          if (state?.running.release_prn === published.releasePrn && state.phase.name === 'idle') counted.installed++;
          else counted[state?.phase.name ?? 'idle']++;
        }
        return counted;
      };

      const phaseSeconds: (number | null)[] = [];
      const deadline = releasedAt + release.timeoutSeconds * 1000;
      for (let phase = 0; phase < phases.length; phase++) {
        if (phase > 0) {
          await api('PATCH', `/releases/${published.releasePrn}`, { phase_value: phases[phase] });
          options.write(`release phased to ${phases[phase]}`);
        }
        const expected = phases[phase] >= 1 ? options.devices : Math.ceil(phases[phase] * options.devices);
        let converged: number | null = null;
        while (Date.now() <= deadline) {
          await new Promise((r) => setTimeout(r, 1000));
          const counted = count();
          const elapsed = (Date.now() - releasedAt) / 1000;
          options.write(`${elapsed.toFixed(0).padStart(4)} s  ${Object.entries(counted).map(([k, v]) => `${k} ${v}`).join('  ')}  failed reports ${failedReports - failedBefore}`);
          if (counted.installed >= expected) {
            converged = elapsed;
            break;
          }
        }
        phaseSeconds.push(converged);
        if (converged === null) break;
      }
      let convergeSeconds = phaseSeconds.length === phases.length ? phaseSeconds[phaseSeconds.length - 1] : null;
      const final = count();
      // A device runs the release once it installed it; the server knows when its next check reports it.
      const onServer = (await serverOnRelease(api, published.releasePrn, onReleaseBefore + final.installed, deadline)) - onReleaseBefore;
      options.write(`the server counts ${onServer} of the ${final.installed} on the release`);
      if (onServer < final.installed) convergeSeconds = null;
      const after = fleetTransfers(devices);
      const transfers: FleetTransfers = {
        fullBytes: after.fullBytes - transfersBefore.fullBytes,
        wireBytes: after.wireBytes - transfersBefore.wireBytes,
        deltasUsed: after.deltasUsed - transfersBefore.deltasUsed,
        deltaFallbacks: after.deltaFallbacks - transfersBefore.deltaFallbacks,
      };
      options.write(`bytes: ${transfers.wireBytes} fetched for ${transfers.fullBytes} of binaries (${transfers.deltasUsed} by delta, ${transfers.deltaFallbacks} fell back)`);
      options.write(
        convergeSeconds === null
          ? `not converged within ${release.timeoutSeconds} s: ${final.installed} of ${options.devices} device${options.devices === 1 ? '' : 's'} run${options.devices === 1 ? 's' : ''} the release`
          : `converged: ${final.installed} of ${options.devices} device${options.devices === 1 ? '' : 's'} run${options.devices === 1 ? 's' : ''} the release ${convergeSeconds.toFixed(1)} s after it was published`,
      );
      return { releasePrn: published.releasePrn, published, phases: final, installed: final.installed, failedReports: failedReports - failedBefore, convergeSeconds, phaseSeconds, serverOnRelease: onServer, transfers };
    },
    async stop() {
      controller.abort();
      await Promise.all(runs);
      for (const device of devices) device.client.close();
    },
  };
}

/** Waits until the server's job has made (or given up on) the delta to `binaryPrn`. */
async function deltaMade(api: AdminApi, binaryPrn: string, deadline: number): Promise<{ state: string; size: number | null }> {
  for (;;) {
    const [delta] = (await api('GET', `/binaries/${binaryPrn}/deltas`)).binary_deltas as Array<{ state: string; size: number | null }>;
    if ((delta && delta.state !== 'pending') || Date.now() > deadline) return delta ?? { state: 'missing', size: null };
    await new Promise((r) => setTimeout(r, 200));
  }
}

function fleetTransfers(devices: VirtualDevice[]): FleetTransfers {
  const sum: FleetTransfers = { fullBytes: 0, wireBytes: 0, deltasUsed: 0, deltaFallbacks: 0 };
  for (const { state } of devices) {
    const t = state?.transfers;
    if (!t) continue;
    sum.fullBytes += t.full_bytes;
    sum.wireBytes += t.wire_bytes;
    sum.deltasUsed += t.deltas_used;
    sum.deltaFallbacks += t.delta_fallbacks;
  }
  return sum;
}

/** An existing release as the simulator watches it. */
async function existingRelease(api: AdminApi, releasePrn: string): Promise<SimulatedRelease> {
  const { release } = await api('GET', `/releases/${releasePrn}`);
  return { releasePrn: release.prn, bundlePrn: release.bundle_prn, size: 0 };
}

/**
 * A fresh work dir (the caller removes it), on tmpfs (/dev/shm) when the machine has one. Every
 * virtual device saves its state as the daemon does, durably (write, fsync, rename, fsync of the
 * directory) at every check. In a real fleet that is one flash chip per device; here thousands of
 * devices would share one disk, and its fsyncs (about 29 ms each on the shared 2-core machine at
 * load 19, two per save) would hold Node's four threadpool threads, behind which every other file
 * operation and every WebCrypto call of the process waits: the disk, not the server, would set
 * the fleet's pace. On tmpfs an fsync returns at once and the same code runs.
 */
export function simulatorWorkDir(base: string = defaultWorkBase()): string {
  fs.mkdirSync(base, { recursive: true });
  return fs.mkdtempSync(path.join(base, 'canopy-simulator-'));
}

function defaultWorkBase(): string {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return '/dev/shm';
  } catch {
    return os.tmpdir();
  }
}
