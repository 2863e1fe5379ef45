/** `canopy-daemon status`: what the device runs and what the daemon is doing, from the state file. */
import type { HeldBack } from './update/hold-back.ts';
import type { DaemonState, Transfers } from './update/state.ts';

export interface StatusView {
  release_prn: string | null;
  bundle_prn: string | null;
  release_version: string | null;
  slot: string | null;
  last_check_at: string | null;
  /** The phase of an install under way, or null when idle. */
  install_in_progress: { phase: string; release_prn: string | null; bundle_prn: string } | null;
  last_failure: DaemonState['last_failure'];
  /** The offer declined for now after it failed or rolled back (update/hold-back.ts), or null. */
  held_back: HeldBack | null;
  /** The soak under way (update/soak.ts): reporting health until the server confirms the device; null otherwise. */
  soak: { release_prn: string; seconds: number; started_at: string } | null;
  pending_reports: number;
  /** Downloads so far: bytes fetched against the full binaries', and deltas used (update/state.ts). */
  transfers: (Transfers & { saved_bytes: number }) | null;
}

export function statusView(state: DaemonState | null): StatusView {
  const phase = state?.phase;
  return {
    release_prn: state?.running.release_prn ?? null,
    bundle_prn: state?.running.bundle_prn ?? null,
    release_version: state?.running.release_version ?? null,
    slot: state?.running.slot ?? null,
    last_check_at: state?.last_check_at ?? null,
    install_in_progress: phase && phase.name !== 'idle' ? { phase: phase.name, release_prn: phase.job.release_prn, bundle_prn: phase.job.bundle_prn } : null,
    last_failure: state?.last_failure ?? null,
    held_back: state?.held_back ?? null,
    soak: state?.soak ? { release_prn: state.soak.release_prn, seconds: state.soak.seconds, started_at: state.soak.started_at } : null,
    pending_reports: state?.pending_reports.length ?? 0,
    transfers: state?.transfers ? { ...state.transfers, saved_bytes: Math.max(0, state.transfers.full_bytes - state.transfers.wire_bytes) } : null,
  };
}

export function formatStatus(view: StatusView): string {
  const lines = [
    `release:        ${view.release_prn ?? '(unknown)'}${view.release_version ? ` (${view.release_version})` : ''}`,
    `bundle:         ${view.bundle_prn ?? '(unknown)'}`,
    `slot:           ${view.slot ?? '(none)'}`,
    `last check:     ${view.last_check_at ?? '(never)'}`,
    `install:        ${view.install_in_progress ? `${view.install_in_progress.phase} ${view.install_in_progress.bundle_prn}` : 'none in progress'}`,
  ];
  if (view.last_failure) lines.push(`last failure:   ${view.last_failure.at} ${view.last_failure.reason}`);
  if (view.held_back) {
    const held = view.held_back;
    const what = held.outcome === 'rolled_back' ? 'rolled back; not retried until another release is offered' : `failed ${held.failures} time(s) in a row; retried with backoff`;
    lines.push(`held back:      ${held.release_prn ?? held.bundle_prn} (${what})`);
  }
  if (view.soak) lines.push(`soak:           ${view.soak.release_prn} (${view.soak.seconds} s from ${view.soak.started_at}; reporting health until confirmed)`);
  if (view.transfers) {
    const t = view.transfers;
    lines.push(`downloaded:     ${t.wire_bytes} bytes for ${t.full_bytes} bytes of binaries (saved ${t.saved_bytes}; ${t.deltas_used} by delta, ${t.delta_fallbacks} fell back)`);
    if (t.last_fallback) lines.push(`last fallback:  ${t.last_fallback.at} ${t.last_fallback.reason}`);
  }
  if (view.pending_reports) lines.push(`reports queued: ${view.pending_reports}`);
  return `${lines.join('\n')}\n`;
}
