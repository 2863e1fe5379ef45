/**
 * A shell session's events, in the events table like every other event (so in GET /events, the
 * live stream and webhooks subscribed to them), in its organization only:
 * `web_console_shell.opened` when a URL's use starts a session, and `web_console_shell.closed`
 * when it ends, with how long it lasted and why it ended. The actor is whoever created the URL
 * (the URL itself is the credential, so that is who handed the session out).
 */
import type { Executor } from '../db/connection';
import { recordEvent } from '../events/service';
import { toRfc3339 } from '../core/time';
import { shellToWire, type ShellRow } from './service';

export interface ShellSession {
  shell: ShellRow;
  startedAt: Date;
  tunnelPrn: string | null;
}

function sessionData(session: ShellSession) {
  const wire = shellToWire(session.shell, '');
  return {
    shell_prn: wire.prn,
    device_prn: wire.device_prn,
    created_by_prn: session.shell.createdByPrn,
    tunnel_prn: session.tunnelPrn,
    started_at: toRfc3339(session.startedAt),
  };
}

async function recordShellEvent(tx: Executor, session: ShellSession, subtype: 'opened' | 'closed', data: Record<string, unknown>): Promise<void> {
  await recordEvent(tx, {
    organizationId: session.shell.organizationId,
    type: 'web_console_shell',
    subtype,
    actorPrn: session.shell.createdByPrn,
    resourcePrn: shellToWire(session.shell, '').prn,
    data,
  });
}

export function recordShellOpened(tx: Executor, session: ShellSession): Promise<void> {
  return recordShellEvent(tx, session, 'opened', sessionData(session));
}

/** `reason`: exited, browser_closed, tunnel_closed, tunnel_expired, device_closed, device_unreachable, shell_disabled, server_stopped, server_error. */
export function recordShellClosed(tx: Executor, session: ShellSession, end: { endedAt: Date; reason: string; exitCode: number | null }): Promise<void> {
  return recordShellEvent(tx, session, 'closed', {
    ...sessionData(session),
    ended_at: toRfc3339(end.endedAt),
    duration_seconds: Math.max(0, Math.round((end.endedAt.getTime() - session.startedAt.getTime()) / 100) / 10),
    close_reason: end.reason,
    exit_code: end.exitCode,
  });
}
