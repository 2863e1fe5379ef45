/**
 * The web console shell (`/console/shell#<token>`): where the one-time URL of
 * `POST /web-console-shells` leads a browser. No sign-in: the URL is the credential, and the
 * token stays in the fragment, which the browser never sends to a server. The terminal is
 * xterm.js; its keystrokes and size go to the device's shell over the admin server's WebSocket
 * (shell-socket.ts), and what the shell prints comes back.
 */
import '@xterm/xterm/css/xterm.css';
import { Alert, Badge, Box, Group, Text, Title } from '@mantine/core';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { connectShell, shellSocketUrl, type ShellEvent } from './shell-socket';

type Phase = { kind: 'connecting' } | { kind: 'waiting' } | { kind: 'connected' } | { kind: 'refused'; code: string } | { kind: 'closed'; reason: string; exitCode: number | null } | { kind: 'dropped' };

const REFUSALS: Record<string, string> = {
  web_console_shell_used: 'This shell URL has been used already. Each URL opens one session: create a new one.',
  web_console_shell_expired: 'This shell URL has expired. Create a new one.',
  not_found: 'This shell URL is not known to the server.',
};

const REASONS: Record<string, string> = {
  exited: 'The shell exited',
  browser_closed: 'The session was closed',
  tunnel_closed: 'The tunnel to the device closed',
  tunnel_expired: 'The tunnel to the device expired',
  device_unreachable: 'The device did not open the tunnel in time',
  device_closed: 'The device ended the session',
  shell_disabled: 'The device does not allow shells (remote_access_tunnels.shell is false)',
  server_stopped: 'The server stopped',
};

function phaseBadge(phase: Phase) {
  switch (phase.kind) {
    case 'connecting':
      return <Badge color="gray">Connecting</Badge>;
    case 'waiting':
      return <Badge color="yellow">Waiting for the device</Badge>;
    case 'connected':
      return <Badge color="green">Connected</Badge>;
    default:
      return <Badge color="red">Closed</Badge>;
  }
}

export function ShellPage() {
  const host = useRef<HTMLDivElement>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'connecting' });
  // Read once: the page removes it from the address bar as soon as it is used.
  const [token] = useState(() => window.location.hash.slice(1));

  useEffect(() => {
    if (!token || !host.current) return;
    // The token is spent by this page: keep it out of the address bar and the history.
    window.history.replaceState(null, '', window.location.pathname);
    const terminal = new Terminal({ cursorBlink: true, convertEol: false, fontFamily: 'ui-monospace, Menlo, Consolas, monospace', fontSize: 14 });
    const fitAddon = new FitAddon();
    terminal.loadAddon(fitAddon);
    terminal.open(host.current);
    // The terminal fills its box; a new size reaches the shell through onResize.
    const fit = () => fitAddon.fit();
    const connection = connectShell(shellSocketUrl(window.location, token), {
      output: (bytes) => terminal.write(bytes),
      event: (event: ShellEvent) => {
        if (event.type === 'status' && event.state === 'waiting_for_device') setPhase({ kind: 'waiting' });
        if (event.type === 'status' && event.state === 'connected') {
          setPhase({ kind: 'connected' });
          connection.resize(terminal.cols, terminal.rows);
          terminal.focus();
        }
        if (event.type === 'refused') setPhase({ kind: 'refused', code: event.code });
        if (event.type === 'closed') setPhase({ kind: 'closed', reason: event.reason, exitCode: event.exit_code });
      },
      dropped: () => setPhase({ kind: 'dropped' }),
    });
    const typed = terminal.onData((data) => connection.send(data));
    const resized = terminal.onResize(({ cols, rows }) => connection.resize(cols, rows));
    fit();
    window.addEventListener('resize', fit);
    return () => {
      window.removeEventListener('resize', fit);
      typed.dispose();
      resized.dispose();
      connection.close();
      terminal.dispose();
    };
  }, [token]);

  return (
    <Box p="md" style={{ display: 'flex', flexDirection: 'column', height: '100vh', boxSizing: 'border-box', gap: 12 }}>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Device shell
        </Title>
        <span data-testid="shell-state">{phaseBadge(phase)}</span>
      </Group>
      {!token && <Alert color="red" title="No shell URL">Open the URL that POST /web-console-shells answered.</Alert>}
      {phase.kind === 'refused' && (
        <Alert color="red" title="Refused" data-testid="shell-refused">
          {REFUSALS[phase.code] ?? `Refused: ${phase.code}`}
        </Alert>
      )}
      {phase.kind === 'closed' && (
        <Alert color="gray" title="Session ended" data-testid="shell-closed">
          <Text size="sm">
            {REASONS[phase.reason] ?? phase.reason}
            {phase.exitCode !== null ? ` (exit code ${phase.exitCode})` : ''}.
          </Text>
        </Alert>
      )}
      {phase.kind === 'dropped' && <Alert color="red" title="Connection lost" data-testid="shell-closed">The connection to the server was lost.</Alert>}
      <div ref={host} data-testid="terminal" aria-label="Terminal" style={{ flex: 1, minHeight: 200, background: '#000', padding: 4 }} />
    </Box>
  );
}
