/**
 * The update flow's persisted state machine, as one table of transitions and nothing else: pure,
 * so every path (including a restart in any state) is tested without a server or a disk.
 *
 *   idle -> downloading -> verifying -> installing -> rebooting -> confirming -> idle
 *
 * Failures, reboots (told apart from restarts by the kernel's boot id), resumption and queued
 * reports: docs/decisions/001-daemon-update-state.md. After an install of a release with a soak
 * the state keeps `soak` until the server confirms the device or a health check fails (soak.ts).
 */
import { heldBackAfter, sameOffer, type HeldBack } from './hold-back.ts';
import type { ManifestEntry } from '@canopy/sdk/device';

export type ReportStatus = 'downloading' | 'installing' | 'rebooting' | 'installed' | 'failed' | 'rolled_back' | 'deferred';

export interface PendingReport {
  status: ReportStatus;
  release_prn: string | null;
  bundle_prn: string;
  progress?: number;
  reason?: string;
}

/** What the device runs: sent as the position headers of every check. */
export interface Running {
  release_prn: string | null;
  bundle_prn: string | null;
  release_version: string | null;
  /** The slot booted, for slot-based installs. */
  slot?: string;
}

/** One offered bundle being installed. */
export interface Job {
  release_prn: string | null;
  bundle_prn: string;
  release_version: string | null;
  entries: ManifestEntry[];
  /** The bundle signatures offered with the bundle (absent in states saved before they existed). */
  bundle_signatures?: { signature: string }[];
  started_at: string;
  /** The release's soak (seconds), as offered; absent or null: none. */
  soak_seconds?: number | null;
}

/** A soak under way: the installed release, reported healthy until the server confirms it (soak.ts). */
export interface Soak {
  release_prn: string;
  bundle_prn: string;
  seconds: number;
  /** When the install finished here (the server starts its own count at the `installed` report). */
  started_at: string;
}

export type Phase =
  | { name: 'idle' }
  | { name: 'downloading'; job: Job }
  | { name: 'verifying'; job: Job }
  | { name: 'installing'; job: Job; installed: string[]; reboot: boolean; slot?: string }
  | { name: 'rebooting'; job: Job; slot?: string; boot_id?: string }
  | { name: 'confirming'; job: Job; slot?: string };

export interface DaemonState {
  version: 1;
  running: Running;
  phase: Phase;
  last_check_at: string | null;
  /** The last failure, for `status` (the server has it as a report too). */
  last_failure: { at: string; bundle_prn: string; reason: string } | null;
  /** The offer that last failed or rolled back, declined for now (absent in older state files). */
  held_back?: HeldBack | null;
  /** The soak under way (absent in older state files). */
  soak?: Soak | null;
  /** Bytes fetched against the full binaries' size, deltas used and fallen back from (absent before any). */
  transfers?: Transfers;
  pending_reports: PendingReport[];
}

/** What `canopy-daemon status` shows of downloads: the bytes deltas saved, and the last fallback. */
export interface Transfers {
  /** Bytes of the binaries fetched, had each come whole. */
  full_bytes: number;
  /** Bytes that came over the network for them (deltas, full binaries, and deltas fallen back from). */
  wire_bytes: number;
  deltas_used: number;
  delta_fallbacks: number;
  last_fallback?: { at: string; binary_prn: string; reason: string };
}

export const INITIAL_STATE: DaemonState = {
  version: 1,
  running: { release_prn: null, bundle_prn: null, release_version: null },
  phase: { name: 'idle' },
  last_check_at: null,
  last_failure: null,
  held_back: null,
  pending_reports: [],
};

export type UpdateEvent =
  /** `boot_id`: this boot's id, when the system has one. */
  | { type: 'started'; boot_id?: string }
  | { type: 'checked'; at: string }
  | { type: 'offered'; job: Job }
  | { type: 'progress'; progress: number }
  /** One entry is on disk: `via` how, the bytes fetched for it, and why a delta was not used. */
  | { type: 'fetched'; binary_prn: string; via: 'delta' | 'full'; full_bytes: number; wire_bytes: number; fallback_reason?: string; at: string }
  | { type: 'downloaded' }
  | { type: 'verified' }
  | { type: 'entry_installed'; binary_prn: string; reboot: boolean; slot?: string }
  /** `boot_id`: the boot the install ran in, to tell the next start's reboot from a restart. `at`: starts a soak. */
  | { type: 'all_installed'; boot_id?: string; at?: string }
  | { type: 'booted' }
  | { type: 'confirmed'; slot?: string; at?: string }
  /** The server confirmed the device (or has no soak for it): reporting health ends. */
  | { type: 'soak_ended' }
  /** A health check failed within the soak: reported as `failed`. */
  | { type: 'soak_failed'; reason: string; at: string }
  | { type: 'rolled_back'; reason: string; at: string; slot?: string }
  | { type: 'failed'; reason: string; at: string }
  | { type: 'reports_sent'; count: number };

export class TransitionError extends Error {}

const reportOf = (job: Job, status: ReportStatus, extra: Partial<PendingReport> = {}): PendingReport => ({
  status,
  release_prn: job.release_prn,
  bundle_prn: job.bundle_prn,
  ...extra,
});

/** The reason, cut to what the device API accepts (1..256 characters). */
export function reportReason(reason: string): string {
  const text = reason.trim() || 'unknown failure';
  return text.length > 256 ? `${text.slice(0, 253)}...` : text;
}

/** The soak an install of `job` finishing at `at` starts, or null. */
function soakOf(job: Job, at: string | undefined): Soak | null {
  if (!job.soak_seconds || job.soak_seconds <= 0 || job.release_prn === null || at === undefined) return null;
  return { release_prn: job.release_prn, bundle_prn: job.bundle_prn, seconds: job.soak_seconds, started_at: at };
}

const runningOf = (job: Job, slot?: string): Running => ({
  release_prn: job.release_prn,
  bundle_prn: job.bundle_prn,
  release_version: job.release_version,
  ...(slot ? { slot } : {}),
});

export function transition(state: DaemonState, event: UpdateEvent): DaemonState {
  const phase = state.phase;
  const refuse = (): never => {
    throw new TransitionError(`${event.type} is not expected in ${phase.name}`);
  };
  const queue = (...reports: PendingReport[]) => [...state.pending_reports, ...reports];

  switch (event.type) {
    case 'started':
      // The boot after a reboot: the new software runs (or the boot loader fell back).
      if (phase.name === 'rebooting') {
        if (phase.boot_id !== undefined && event.boot_id !== undefined && phase.boot_id === event.boot_id) return state; // restarted, not rebooted
        return { ...state, phase: { name: 'confirming', job: phase.job, slot: phase.slot } };
      }
      return state;
    case 'checked':
      return { ...state, last_check_at: event.at };
    case 'reports_sent':
      return { ...state, pending_reports: state.pending_reports.slice(event.count) };
    case 'offered':
      if (phase.name !== 'idle') return refuse();
      return {
        ...state,
        phase: { name: 'downloading', job: event.job },
        // A new install ends the soak of the last one: the server counts the device's latest report.
        soak: null,
        held_back: state.held_back && sameOffer(state.held_back, event.job) ? state.held_back : null,
        pending_reports: queue(reportOf(event.job, 'downloading', { progress: 0 })),
      };
    case 'progress':
      if (phase.name !== 'downloading') return refuse();
      return { ...state, pending_reports: queue(reportOf(phase.job, 'downloading', { progress: Math.min(1, Math.max(0, event.progress)) })) };
    case 'fetched': {
      if (phase.name !== 'downloading') return refuse();
      const t = state.transfers ?? { full_bytes: 0, wire_bytes: 0, deltas_used: 0, delta_fallbacks: 0 };
      const fellBack = event.fallback_reason !== undefined;
      return {
        ...state,
        transfers: {
          full_bytes: t.full_bytes + event.full_bytes,
          wire_bytes: t.wire_bytes + event.wire_bytes,
          deltas_used: t.deltas_used + (event.via === 'delta' ? 1 : 0),
          delta_fallbacks: t.delta_fallbacks + (fellBack ? 1 : 0),
          ...(fellBack ? { last_fallback: { at: event.at, binary_prn: event.binary_prn, reason: reportReason(event.fallback_reason!) } } : t.last_fallback ? { last_fallback: t.last_fallback } : {}),
        },
      };
    }
    case 'downloaded':
      if (phase.name !== 'downloading') return refuse();
      return { ...state, phase: { name: 'verifying', job: phase.job } };
    case 'verified':
      if (phase.name !== 'verifying') return refuse();
      return { ...state, phase: { name: 'installing', job: phase.job, installed: [], reboot: false }, pending_reports: queue(reportOf(phase.job, 'installing')) };
    case 'entry_installed':
      if (phase.name !== 'installing') return refuse();
      return {
        ...state,
        phase: {
          ...phase,
          installed: phase.installed.includes(event.binary_prn) ? phase.installed : [...phase.installed, event.binary_prn],
          reboot: phase.reboot || event.reboot,
          slot: event.slot ?? phase.slot,
        },
      };
    case 'all_installed': {
      if (phase.name !== 'installing') return refuse();
      if (phase.reboot) {
        const rebooting: Phase = { name: 'rebooting', job: phase.job, slot: phase.slot, ...(event.boot_id ? { boot_id: event.boot_id } : {}) };
        return { ...state, phase: rebooting, pending_reports: queue(reportOf(phase.job, 'rebooting')) };
      }
      return {
        ...state,
        phase: { name: 'idle' },
        running: runningOf(phase.job, state.running.slot),
        held_back: null,
        soak: soakOf(phase.job, event.at),
        pending_reports: queue(reportOf(phase.job, 'installed')),
      };
    }
    case 'booted':
      if (phase.name !== 'rebooting') return refuse();
      return { ...state, phase: { name: 'confirming', job: phase.job, slot: phase.slot } };
    case 'confirmed':
      if (phase.name !== 'confirming') return refuse();
      return {
        ...state,
        phase: { name: 'idle' },
        running: runningOf(phase.job, event.slot ?? phase.slot ?? state.running.slot),
        held_back: null,
        soak: soakOf(phase.job, event.at),
        pending_reports: queue(reportOf(phase.job, 'installed')),
      };
    case 'rolled_back': {
      if (phase.name !== 'confirming') return refuse();
      const reason = reportReason(event.reason);
      return {
        ...state,
        phase: { name: 'idle' },
        running: { ...state.running, ...(event.slot ? { slot: event.slot } : {}) },
        last_failure: { at: event.at, bundle_prn: phase.job.bundle_prn, reason },
        held_back: heldBackAfter(state.held_back, phase.job, 'rolled_back', event.at),
        pending_reports: queue(reportOf(phase.job, 'rolled_back', { reason })),
      };
    }
    case 'soak_ended':
      return { ...state, soak: null };
    case 'soak_failed': {
      const soak = state.soak;
      if (!soak) return refuse();
      const reason = reportReason(event.reason);
      return {
        ...state,
        soak: null,
        last_failure: { at: event.at, bundle_prn: soak.bundle_prn, reason },
        pending_reports: queue({ status: 'failed', release_prn: soak.release_prn, bundle_prn: soak.bundle_prn, reason }),
      };
    }
    case 'failed': {
      if (phase.name === 'idle') return refuse();
      const reason = reportReason(event.reason);
      return {
        ...state,
        phase: { name: 'idle' },
        last_failure: { at: event.at, bundle_prn: phase.job.bundle_prn, reason },
        held_back: heldBackAfter(state.held_back, phase.job, 'failed', event.at),
        pending_reports: queue(reportOf(phase.job, 'failed', { reason })),
      };
    }
  }
}

/** At most one `downloading` progress report per this long per install (device API reference). */
export const PROGRESS_REPORT_INTERVAL_MS = 5000;

/** Whether a progress report may go now, given when the last one of this install went. */
export function progressReportDue(lastReportAt: number | null, now: number): boolean {
  return lastReportAt === null || now - lastReportAt >= PROGRESS_REPORT_INTERVAL_MS;
}
