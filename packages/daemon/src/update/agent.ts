/**
 * The update agent: one device's update loop around the pure state machine (state.ts). The real
 * daemon runs one; the fleet simulator runs thousands in one process, with the same code, its own
 * installers and a `reboot` that returns at once.
 *
 * Every transition is saved (state-store.ts) before the work of the next phase starts, and the
 * reports it queued are sent after, from the saved queue: a crash repeats work or a report, and
 * loses neither. After an install of a release with a soak it runs the health check on soak.ts's
 * pace between its polls and reports `healthy` (best effort, not queued) until the server confirms.
 */
import fsp from 'node:fs/promises';
import type { DeviceClient, ManifestEntry } from '@canopy/sdk/device';
import { CanopyApiError } from '@canopy/sdk/device';
import type { DaemonConfig } from '../config/types.ts';
import { keepBases } from '../deltas/base-source.ts';
import { fetchByDelta } from '../deltas/fetch-delta.ts';
import { downloadEntry, DownloadError, finishedPath } from '../download/download-entry.ts';
import type { InstallerRegistry } from '../installers/installer.ts';
import { pickInstaller } from '../installers/installer.ts';
import { parseCanopyMetadata, type CanopyMetadata } from '../installers/metadata.ts';
import type { Logger } from '../log.ts';
import { sha256File } from '../verify/hash-file.ts';
import { checkBundleSignatures } from '../verify/bundle-signatures.ts';
import { checkSignatures, type SigningKey } from '../verify/signatures.ts';
import type { TufVerifier } from '../verify/tuf/verifier.ts';
import { holdBackOf } from './hold-back.ts';
import { checkReadiness } from './readiness.ts';
import { soakCheckDueAt } from './soak.ts';
import { runHealthCheck } from '../installers/avocado-ab.ts';
import { progressReportDue, transition, type DaemonState, type Job, type UpdateEvent } from './state.ts';
import type { StateStore } from './state-store.ts';
import path from 'node:path';

/** The expansions a check asks for: everything a job needs. */
export const CHECK_EXPANSIONS = ['source_type', 'release', 'bundle', 'manifest'] as const;

/** Attempts at one transfer (a lost connection resumes from the bytes on disk) before failing. */
const TRANSFER_ATTEMPTS = 3;

export interface AgentDeps {
  config: DaemonConfig;
  trustedKeys: readonly SigningKey[];
  client: DeviceClient;
  installers: InstallerRegistry;
  store: StateStore;
  log: Logger;
  /** Extra CA for https download URLs (the device API's server CA). */
  caPem?: Buffer;
  /**
   * Reboots the device. Resolves `true` when the device is up again in this process (the
   * simulator), `false` when the process should stop and wait for the reboot (the daemon).
   */
  reboot: () => Promise<boolean>;
  /**
   * This boot's id (the daemon reads /proc/sys/kernel/random/boot_id), recorded before a reboot
   * and compared at the next start to tell the reboot from a mere restart (state.ts). Absent or
   * undefined (the simulator, a system without one): every start after `rebooting` is the boot.
   */
  bootId?: () => Promise<string | undefined>;
  now?: () => Date;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** With `tuf` configured: the TUF check of every offer before its download (verify/tuf/). */
  tuf?: TufVerifier;
  /**
   * The health check of a soak (soak.ts). Absent: `health_check` from the configuration, run as
   * after a slot install (CANOPY_SLOT is `soak`), or, without one, a running daemon is healthy.
   * The simulator gives its virtual devices their own.
   */
  healthCheck?: (signal: AbortSignal) => Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Called after every saved transition (the simulator counts devices per phase). */
  onTransition?: (state: DaemonState, event: UpdateEvent) => void;
}

export interface UpdateAgent {
  /** Loads the persisted state and applies the start rules (a pending reboot is now done). */
  start(): Promise<DaemonState>;
  /** One check and, when offered, the whole install. 'stop': the process should exit for a reboot. */
  checkOnce(signal: AbortSignal): Promise<'continue' | 'stop'>;
  /** Finishes whatever the persisted state says is under way (after a restart). */
  resume(signal: AbortSignal): Promise<'continue' | 'stop'>;
  /** Sends the queued reports, oldest first, until one cannot be sent now. */
  flushReports(signal?: AbortSignal): Promise<void>;
  /** start, resume, then check every update_poll_interval plus jitter until aborted. */
  run(signal: AbortSignal): Promise<'aborted' | 'stop'>;
  state(): DaemonState;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Logs an installer's progress at most every 10 points, so a chatty tool cannot flood the journal. */
function installProgressLog(log: Logger, binaryPrn: string): (fraction: number, step: string) => void {
  let logged = -1;
  return (fraction, step) => {
    const percent = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
    if (percent < logged + 10 && percent < 100) return;
    logged = percent;
    log.info('install progress', { binary_prn: binaryPrn, percent, step: step.slice(0, 200) });
  };
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createUpdateAgent(deps: AgentDeps): UpdateAgent {
  const { config, client, store, log } = deps;
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const sleep = deps.sleep ?? defaultSleep;
  let state: DaemonState;
  let saving: Promise<void> = Promise.resolve();
  let flushing: Promise<void> | null = null;
  /** The last check's `retry_after` (a full concurrency cap), in seconds; null: poll as usual. */
  let retryHintSeconds: number | null = null;

  /** The wait before the next check: the server's retry hint when it gave one, else the interval plus jitter. */
  function nextPollMs(): number {
    if (retryHintSeconds !== null) return retryHintSeconds * 1000;
    return config.update_poll_interval * 1000 + random() * config.update_jitter * 1000;
  }

  /** Applies a transition and saves it; saves run one at a time, each writing the newest state. */
  async function apply(event: UpdateEvent): Promise<void> {
    state = transition(state, event);
    const snapshot = state;
    saving = saving.then(() => store.save(snapshot));
    await saving;
    if (event.type !== 'reports_sent' && event.type !== 'progress' && event.type !== 'checked') {
      log.info('update state', { event: event.type, phase: state.phase.name, ...('reason' in event ? { reason: event.reason } : {}) });
    }
    deps.onTransition?.(state, event);
  }

  async function sendReports(signal?: AbortSignal): Promise<void> {
    while (state.pending_reports.length > 0 && !signal?.aborted) {
      const report = state.pending_reports[0];
      try {
        await client.report(report, { signal });
        log.debug('report sent', { status: report.status, bundle_prn: report.bundle_prn });
      } catch (error) {
        if (error instanceof CanopyApiError && error.status >= 400 && error.status < 500 && error.status !== 429) {
          // The server will never take this one (its release was deleted, say): drop it, keep the rest.
          log.warn('report refused; dropped', { status: report.status, code: error.code, http_status: error.status });
        } else {
          log.warn('report not sent; kept for later', { status: report.status, error: message(error) });
          return;
        }
      }
      await apply({ type: 'reports_sent', count: 1 });
    }
  }

  function flushReports(signal?: AbortSignal): Promise<void> {
    flushing ??= sendReports(signal).finally(() => {
      flushing = null;
    });
    return flushing;
  }

  async function fail(reason: string): Promise<'continue'> {
    log.warn('install failed', { reason });
    await apply({ type: 'failed', reason, at: now().toISOString() });
    await flushReports();
    return 'continue';
  }

  function metadataOf(entry: ManifestEntry): CanopyMetadata | string {
    const parsed = parseCanopyMetadata(entry.custom_metadata);
    return parsed.ok ? parsed.metadata : parsed.reason;
  }

  /** One transfer (a binary or a delta) into `dir`, resuming a lost connection up to TRANSFER_ATTEMPTS times. */
  async function transfer(entry: ManifestEntry, dir: string, signal: AbortSignal, onProgress?: (bytes: number) => void): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await downloadEntry(entry, {
          dir,
          signal,
          caPem: deps.caPem,
          onResume: (offset) => log.info('download resuming', { binary_prn: entry.binary_prn, offset, size: entry.size }),
          onProgress,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        if (error instanceof DownloadError && error.kind === 'transfer' && attempt < TRANSFER_ATTEMPTS) {
          log.warn('download interrupted; resuming', { binary_prn: entry.binary_prn, attempt, error: error.message });
          await sleep(1000 * attempt * (0.5 + random()), signal);
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * The entry's delta when one is offered from what the device runs (deltas/fetch-delta.ts), else
   * or on any failure of it the full binary. Records the bytes fetched and any fallback's reason.
   */
  async function fetchEntry(entry: ManifestEntry, signal: AbortSignal, onProgress: (bytes: number) => void): Promise<void> {
    const finished = finishedPath(config.download_dir, entry);
    const already = await fsp.stat(finished).catch(() => null);
    const metadata = metadataOf(entry);
    const delta =
      already?.size === entry.size || typeof metadata === 'string'
        ? null
        : await fetchByDelta(entry, {
            config,
            metadata,
            installer: deps.installers.get(metadata.installer),
            signal,
            download: (pseudo, dir) => transfer(pseudo, dir, signal, (bytes) => onProgress(Math.round((bytes / pseudo.size) * entry.size))),
          });
    const at = now().toISOString();
    if (delta?.used) {
      log.info('rebuilt from delta', { binary_prn: entry.binary_prn, delta_bytes: delta.wireBytes, size: entry.size, saved_bytes: entry.size - delta.wireBytes, base: delta.base });
      await apply({ type: 'fetched', binary_prn: entry.binary_prn, via: 'delta', full_bytes: entry.size, wire_bytes: delta.wireBytes, at });
      return;
    }
    if (delta) log.warn('delta not used; downloading the full binary', { binary_prn: entry.binary_prn, reason: delta.reason, detail: delta.detail.slice(0, 300) });
    await transfer(entry, config.download_dir, signal, onProgress);
    const fallback = delta ? { fallback_reason: `${delta.reason}: ${delta.detail}` } : {};
    await apply({ type: 'fetched', binary_prn: entry.binary_prn, via: 'full', full_bytes: entry.size, wire_bytes: (already ? 0 : entry.size) + (delta?.wireBytes ?? 0), at, ...fallback });
  }

  async function download(job: Job, signal: AbortSignal): Promise<string | null> {
    const total = job.entries.reduce((sum, e) => sum + e.size, 0);
    let done = 0;
    let lastReport: number | null = Date.now();
    for (const entry of job.entries) {
      try {
        await fetchEntry(entry, signal, (bytes) => {
          const at = Date.now();
          if (!progressReportDue(lastReport, at) || total === 0) return;
          lastReport = at;
          void apply({ type: 'progress', progress: Math.min(1, (done + bytes) / total) }).then(() => flushReports(signal));
        });
      } catch (error) {
        if (signal.aborted) throw error;
        return `${entry.artifact.name}: ${message(error)}`;
      }
      done += entry.size;
      log.info('downloaded', { binary_prn: entry.binary_prn, size: entry.size });
    }
    return null;
  }

  async function verify(job: Job, signal: AbortSignal): Promise<string | null> {
    for (const entry of job.entries) {
      const file = finishedPath(config.download_dir, entry);
      let hash: string;
      let size: number;
      try {
        ({ hash, size } = await sha256File(file, signal));
      } catch (error) {
        if (signal.aborted) throw error;
        return `${entry.artifact.name}: downloaded file unreadable (${(error as NodeJS.ErrnoException).code ?? message(error)})`;
      }
      const problem =
        size !== entry.size
          ? `size mismatch: expected ${entry.size} bytes, got ${size}`
          : hash !== entry.hash.toLowerCase()
            ? `sha256 mismatch: expected ${entry.hash.toLowerCase()}, got ${hash}`
            : null;
      // With TUF the hash and size just checked are the signed ones (checked before download).
      const verdict = problem ? { ok: false as const, reason: problem } : deps.tuf ? { ok: true as const, keys: [] } : checkSignatures(hash, entry.signatures ?? [], deps.trustedKeys, config.signature_threshold);
      if (!verdict.ok) {
        await fsp.rm(file, { force: true });
        return `${entry.artifact.name}: ${verdict.reason}`;
      }
      log.info('verified', { binary_prn: entry.binary_prn, trusted_keys: verdict.keys.length });
    }
    return null;
  }

  async function freeBytes(target: string): Promise<number> {
    let dir = path.dirname(target);
    for (;;) {
      try {
        const stats = await fsp.statfs(dir);
        return stats.bavail * stats.bsize;
      } catch {
        const parent = path.dirname(dir);
        if (parent === dir) return Number.MAX_SAFE_INTEGER;
        dir = parent;
      }
    }
  }

  async function install(signal: AbortSignal): Promise<'continue' | 'stop'> {
    const phase = state.phase;
    if (phase.name !== 'installing') return 'continue';
    const timeout = AbortSignal.timeout(config.install_timeout * 1000);
    const installSignal = AbortSignal.any([signal, timeout]);
    for (const entry of phase.job.entries) {
      if ((state.phase as typeof phase).installed.includes(entry.binary_prn)) continue;
      const metadata = metadataOf(entry);
      if (typeof metadata === 'string') return fail(`${entry.artifact.name}: ${metadata}`);
      const picked = pickInstaller(deps.installers, metadata, config);
      if ('reason' in picked) return fail(`${entry.artifact.name}: ${picked.reason}`);
      if (metadata.min_free_bytes !== undefined) {
        const where = metadata.file?.path ?? config.download_dir;
        const free = await freeBytes(where);
        if (free < metadata.min_free_bytes) return fail(`${entry.artifact.name}: ${free} bytes free, ${metadata.min_free_bytes} required`);
      }
      const stateDir = path.join(config.state_dir, 'installers', metadata.installer);
      await fsp.mkdir(stateDir, { recursive: true, mode: 0o700 });
      try {
        const outcome = await picked.installer.install({
          file: finishedPath(config.download_dir, entry),
          entry,
          metadata,
          config,
          log: log.child({ installer: metadata.installer, binary_prn: entry.binary_prn }),
          signal: installSignal,
          stateDir,
          bootId: await deps.bootId?.(),
          progress: installProgressLog(log, entry.binary_prn),
        });
        await apply({ type: 'entry_installed', binary_prn: entry.binary_prn, reboot: outcome.rebootRequired || metadata.reboot_required, slot: outcome.slot });
      } catch (error) {
        if (signal.aborted) throw error;
        return fail(`${entry.artifact.name}: ${timeout.aborted ? `install took longer than install_timeout (${config.install_timeout} s)` : message(error)}`);
      }
    }
    if (config.deltas?.keep_base) {
      const installed = phase.job.entries.map((entry) => ({ file: finishedPath(config.download_dir, entry), hash: entry.hash }));
      await keepBases(config, installed).catch((error: unknown) => log.warn('kept no copy as the next delta\'s base', { error: message(error) }));
    }
    // The downloads go before the state says so: once `all_installed` is recorded nothing would
    // come back for them, so a crash between the two must leave the files to remove on the rerun.
    await removeDownloads(phase.job);
    await apply({ type: 'all_installed', boot_id: await deps.bootId?.(), at: now().toISOString() });
    await flushReports();
    return drive(signal);
  }

  async function removeDownloads(job: Job): Promise<void> {
    for (const entry of job.entries) await fsp.rm(finishedPath(config.download_dir, entry), { force: true });
    // Deltas fallen back from mid-transfer leave their partial files here.
    await fsp.rm(path.join(config.download_dir, 'deltas'), { recursive: true, force: true });
  }

  /**
   * After a rollback that chose the old slot while the new one still runs (failed health check):
   * the `rolled_back` report is saved (and sent if the server answers) first, then the device
   * reboots into the old slot. A power cut between the two leaves the environment pointing at the
   * old slot, so the next boot, whenever it comes, runs it; the report is already queued.
   */
  async function rebootAfterRollback(signal: AbortSignal): Promise<'continue' | 'stop'> {
    await flushReports(signal);
    log.warn('rebooting into the previous slot', { command: config.reboot_command[0] });
    try {
      return (await deps.reboot()) ? 'continue' : 'stop';
    } catch (error) {
      log.error('reboot after rollback failed', { error: message(error) });
      return 'continue';
    }
  }

  async function confirm(signal: AbortSignal): Promise<'continue' | 'stop'> {
    const phase = state.phase;
    if (phase.name !== 'confirming') return 'continue';
    for (const entry of phase.job.entries) {
      const metadata = metadataOf(entry);
      if (typeof metadata === 'string') continue;
      const installer = deps.installers.get(metadata.installer);
      if (!installer?.confirm) continue;
      const stateDir = path.join(config.state_dir, 'installers', metadata.installer);
      const outcome = await installer.confirm({ config, log: log.child({ installer: metadata.installer }), signal, stateDir, slot: phase.slot });
      if (outcome.result === 'rolled_back') {
        await apply({ type: 'rolled_back', reason: outcome.reason, at: now().toISOString(), slot: outcome.slot });
        if (outcome.rebootRequired) return rebootAfterRollback(signal);
        await flushReports();
        return 'continue';
      }
      await apply({ type: 'confirmed', slot: outcome.slot, at: now().toISOString() });
      await flushReports();
      return 'continue';
    }
    await apply({ type: 'confirmed', at: now().toISOString() });
    await flushReports();
    return 'continue';
  }

  /** Runs the current phase and every one after it, until idle or a reboot stops the process. */
  async function drive(signal: AbortSignal): Promise<'continue' | 'stop'> {
    const phase = state.phase;
    switch (phase.name) {
      case 'idle':
        return 'continue';
      case 'downloading': {
        // Everything the install will need is checked before any byte is fetched: bundle
        // signatures short of the threshold, metadata the daemon cannot read, or an installer
        // this device lacks, fails the job now.
        const { job } = phase;
        const bundleVerdict = checkBundleSignatures({ bundle_prn: job.bundle_prn, entries: job.entries, signatures: job.bundle_signatures ?? [] }, deps.trustedKeys, config.bundle_signature_threshold);
        if (!bundleVerdict.ok) return fail(bundleVerdict.reason);
        for (const entry of phase.job.entries) {
          const metadata = metadataOf(entry);
          if (typeof metadata === 'string') return fail(`${entry.artifact.name}: ${metadata}`);
          const picked = pickInstaller(deps.installers, metadata, config);
          if ('reason' in picked) return fail(`${entry.artifact.name}: ${picked.reason}`);
        }
        // TUF: the offer must be what the organization's offline keys signed, or nothing is fetched.
        if (deps.tuf) {
          try {
            await deps.tuf.check(phase.job);
          } catch (error) {
            return fail(message(error));
          }
        }
        const problem = await download(phase.job, signal);
        if (problem) return fail(problem);
        await apply({ type: 'downloaded' });
        return drive(signal);
      }
      case 'verifying': {
        const problem = await verify(phase.job, signal);
        if (problem) return fail(problem);
        await apply({ type: 'verified' });
        await flushReports();
        return drive(signal);
      }
      case 'installing':
        return install(signal);
      case 'rebooting': {
        await flushReports(signal);
        log.info('rebooting', { command: config.reboot_command[0] });
        let upAgain: boolean;
        try {
          upAgain = await deps.reboot();
        } catch (error) {
          log.error('reboot failed; trying again at the next poll', { error: message(error) });
          return 'continue';
        }
        if (!upAgain) return 'stop';
        await apply({ type: 'booted' });
        return drive(signal);
      }
      case 'confirming':
        return confirm(signal);
    }
  }

  async function checkOnce(signal: AbortSignal): Promise<'continue' | 'stop'> {
    retryHintSeconds = null;
    await flushReports(signal);
    if (state.phase.name !== 'idle') return drive(signal);
    const running = state.running;
    const check = await client.checkForUpdate(
      { releasePrn: running.release_prn, bundlePrn: running.bundle_prn, releaseVersion: running.release_version },
      CHECK_EXPANSIONS,
      { signal },
    );
    await apply({ type: 'checked', at: now().toISOString() });
    log.debug('checked for update', { status: check.status });
    if (check.status === 'retry_later') {
      // The release's concurrency cap is full: the next poll comes after the server's hint.
      retryHintSeconds = typeof check.retry_after === 'number' && check.retry_after > 0 ? check.retry_after : null;
      log.info('update busy; retrying later', { retry_after: retryHintSeconds });
      return 'continue';
    }
    if (check.status !== 'update' || !check.bundle) return 'continue';
    const job: Job = {
      release_prn: check.release?.prn ?? null,
      bundle_prn: check.bundle.prn,
      release_version: check.release?.version ?? null,
      entries: check.manifest ?? [],
      bundle_signatures: (check.bundle.signatures ?? []).map(({ signature }) => ({ signature })),
      started_at: now().toISOString(),
      soak_seconds: check.release?.soak_seconds ?? null,
    };
    const held = holdBackOf(state.held_back, job, now(), config.update_poll_interval);
    if (held) {
      // Declined for now (hold-back.ts): no report, the server has the failure or rollback already.
      log.info('update held back', {
        release_prn: job.release_prn,
        bundle_prn: job.bundle_prn,
        after: state.held_back!.outcome,
        failures: state.held_back!.failures,
        retry_after: held.until ? held.until.toISOString() : 'a different release',
      });
      return 'continue';
    }
    if (config.readiness_command) {
      // Not now (readiness.ts): nothing is downloaded and no state kept; the next poll asks again.
      const readiness = await checkReadiness(config.readiness_command, config.readiness_timeout ?? 30);
      if (!readiness.ready) {
        log.info('update deferred', { release_prn: job.release_prn, bundle_prn: job.bundle_prn, reason: readiness.reason });
        // Best effort, not queued: the next poll defers again (and reports again) or installs.
        await client
          .report({ status: 'deferred', release_prn: job.release_prn, bundle_prn: job.bundle_prn, reason: readiness.reason || 'not ready' }, { signal })
          .catch((error: unknown) => log.warn('deferral not reported', { error: message(error) }));
        return 'continue';
      }
    }
    log.info('update offered', { release_prn: job.release_prn, bundle_prn: job.bundle_prn, binaries: job.entries.length });
    await apply({ type: 'offered', job });
    void flushReports(signal);
    return drive(signal);
  }

  let lastSoakCheck: number | null = null;

  function runSoakHealthCheck(signal: AbortSignal) {
    if (deps.healthCheck) return deps.healthCheck(signal);
    if (config.health_check) return runHealthCheck(config.health_check, 'soak', config.install_timeout, signal);
    return Promise.resolve({ ok: true } as const);
  }

  /**
   * One check of the soak under way: a failed health check is queued as `failed`; a passed one
   * is reported `healthy` once every queued report is in (the server must have `installed`
   * first), and the soak ends when the server answers it is not soaking any more.
   */
  async function soakCheck(signal: AbortSignal): Promise<void> {
    const soak = state.soak;
    if (!soak) return;
    lastSoakCheck = Date.now();
    const health = await runSoakHealthCheck(signal);
    if (signal.aborted || state.soak !== soak) return;
    if (!health.ok) {
      log.warn('health check failed during the soak', { release_prn: soak.release_prn, reason: health.reason });
      await apply({ type: 'soak_failed', reason: `soak: ${health.reason}`, at: now().toISOString() });
      await flushReports(signal);
      return;
    }
    await flushReports(signal);
    if (state.pending_reports.length > 0) return;
    try {
      const answer = await client.report({ status: 'healthy', release_prn: soak.release_prn, bundle_prn: soak.bundle_prn }, { signal });
      if (answer.soak !== 'soaking' && state.soak === soak) {
        log.info('soak ended', { release_prn: soak.release_prn, outcome: answer.soak ?? 'none' });
        await apply({ type: 'soak_ended' });
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof CanopyApiError && error.status >= 400 && error.status < 500 && error.status !== 429) {
        log.warn('soak report refused; soak ended', { code: error.code, http_status: error.status });
        await apply({ type: 'soak_ended' });
      } else log.warn('soak report not sent; next check retries', { error: message(error) });
    }
  }

  /** Sleeps `ms`, running the soak's checks when they fall due meanwhile. */
  async function sleepWithSoak(ms: number, signal: AbortSignal): Promise<void> {
    if (!state.soak) return sleep(ms, signal);
    const wakeAt = Date.now() + ms;
    while (!signal.aborted) {
      const soak = state.soak;
      const left = wakeAt - Date.now();
      const due = soak ? soakCheckDueAt(soak, lastSoakCheck) - Date.now() : Infinity;
      if (due >= left) return sleep(Math.max(0, left), signal);
      await sleep(Math.max(0, due), signal);
      if (signal.aborted) return;
      try {
        await soakCheck(signal);
      } catch (error) {
        if (!signal.aborted) log.warn('soak check failed', { error: message(error) });
      }
    }
  }

  /**
   * A trial an installer still holds while the loop has no job for it (the state file was lost or
   * reset): confirm it now so the slot is made permanent or sent back. No report: the loop does
   * not know which bundle it was.
   */
  async function confirmOrphanTrials(signal: AbortSignal): Promise<'continue' | 'stop'> {
    for (const installer of deps.installers.values()) {
      if (!installer.confirm || !installer.trialPending) continue;
      const stateDir = path.join(config.state_dir, 'installers', installer.name);
      try {
        if (!(await installer.trialPending(config, stateDir, await deps.bootId?.()))) continue;
        log.warn('trial boot pending without an install in progress; confirming it', { installer: installer.name });
        const outcome = await installer.confirm({ config, log: log.child({ installer: installer.name }), signal, stateDir });
        log.info('trial boot ended', { installer: installer.name, result: outcome.result, slot: outcome.slot, ...(outcome.result === 'rolled_back' ? { reason: outcome.reason } : {}) });
        if (outcome.result === 'rolled_back' && outcome.rebootRequired) return rebootAfterRollback(signal);
      } catch (error) {
        if (signal.aborted) throw error;
        log.error('confirming a pending trial failed', { installer: installer.name, error: message(error) });
      }
    }
    return 'continue';
  }

  return {
    async start() {
      state = await store.load();
      await apply({ type: 'started', boot_id: await deps.bootId?.() });
      if (state.phase.name === 'rebooting') log.warn('started in the boot the reboot was asked from (same boot id): the reboot did not happen; asking again');
      return state;
    },
    checkOnce,
    resume: drive,
    flushReports,
    async run(signal) {
      await this.start();
      let outcome: 'continue' | 'stop' = 'continue';
      try {
        outcome = state.phase.name === 'idle' ? await confirmOrphanTrials(signal) : 'continue';
        if (outcome === 'continue') outcome = await drive(signal);
      } catch (error) {
        if (signal.aborted) return 'aborted';
        log.error('resuming the update failed', { error: message(error) });
      }
      while (outcome === 'continue' && !signal.aborted) {
        try {
          outcome = await checkOnce(signal);
        } catch (error) {
          if (signal.aborted) break;
          log.warn('update check failed', { error: message(error) });
        }
        if (outcome === 'stop' || signal.aborted) break;
        await sleepWithSoak(nextPollMs(), signal);
      }
      await saving;
      return outcome === 'stop' ? 'stop' : 'aborted';
    },
    state: () => state,
  };
}
