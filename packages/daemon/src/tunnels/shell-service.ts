/**
 * The web console's shell on the device: a TCP service bound to the shell tunnel's address only
 * (device_proxy_ip_address:device_proxy_port, device_tunnel_port 0), so only the server's end of
 * that tunnel reaches it. Each connection gets a login shell on a real pseudo-terminal; bytes,
 * resizes and the exit code travel as frames (@canopy/sdk/shell-frames); closing the service
 * kills every shell. The PTY is util-linux `script -qfec <shell> /dev/null`, not a native addon:
 * the daemon is one JavaScript file needing only Node, and node-pty would need a build per device
 * architecture. Ctrl-C (0x03) reaches the line discipline as on any terminal. A resize is
 * `stty -F <slave> rows R cols C` (the kernel then signals SIGWINCH to the foreground job); the
 * slave's path is read from the shell's fd 0 in /proc.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import { encodeFrame, frameDecoder, type ShellFrame } from '@canopy/sdk/shell-frames';
import type { Logger } from '../log.ts';

export interface ShellService {
  /** The port it listens on (the one asked for, or the kernel's pick for 0). */
  port: number;
  close(): Promise<void>;
}

/** The shell run on the PTY: the daemon's $SHELL when it is an absolute path, else /bin/sh. */
function loginShell(): string {
  const shell = process.env.SHELL;
  return shell && shell.startsWith('/') && !/[\s'"\\$`]/.test(shell) ? shell : '/bin/sh';
}

/** The PTY slave of the shell `script` started (its only child), or null while it is not there yet. */
async function slaveOf(scriptPid: number): Promise<string | null> {
  try {
    const children = (await fs.readFile(`/proc/${scriptPid}/task/${scriptPid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean);
    if (children.length === 0) return null;
    const slave = await fs.readlink(`/proc/${children[0]}/fd/0`);
    return slave.startsWith('/dev/pts/') ? slave : null;
  } catch {
    return null;
  }
}

const clamp = (n: number) => Math.max(1, Math.min(n, 1000));

/**
 * Ends a session's shell: `script` ignores SIGHUP but exits on SIGTERM, closing the PTY's master
 * side, so the kernel hangs up the shell's session and the shell (and its jobs) get SIGHUP.
 */
function endShell(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

/** One shell session on one connection. */
function serveShell(socket: net.Socket, log: Logger): ChildProcess {
  const shell = loginShell();
  // `exec`: the shell itself is script's child (and the PTY's session leader), not a wrapping sh.
  const child = spawn('script', ['-qfec', `exec '${shell}' -l`, '/dev/null'], {
    cwd: process.env.HOME && process.env.HOME.startsWith('/') ? process.env.HOME : '/',
    env: { ...process.env, TERM: 'xterm-256color', SHELL: '/bin/sh' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let slave: string | null = null;
  let wanted: { cols: number; rows: number } | null = null;
  let resizing = false;
  /** Applies the latest size asked for; waits (briefly) for the shell to exist first. */
  async function applySize(): Promise<void> {
    if (resizing) return;
    resizing = true;
    try {
      for (let i = 0; i < 40 && !slave && child.exitCode === null; i++) {
        slave = await slaveOf(child.pid!);
        if (!slave) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      while (slave && wanted) {
        const size = wanted;
        wanted = null;
        await new Promise<void>((resolve) => execFile('stty', ['-F', slave!, 'rows', String(clamp(size.rows)), 'cols', String(clamp(size.cols))], () => resolve()));
      }
    } finally {
      resizing = false;
    }
  }

  const send = (frame: ShellFrame) => {
    if (!socket.destroyed) socket.write(encodeFrame(frame));
  };
  child.stdout!.on('data', (bytes: Buffer) => send({ kind: 'data', bytes }));
  child.stderr!.on('data', (bytes: Buffer) => send({ kind: 'data', bytes }));
  child.stdin!.on('error', () => undefined);
  child.on('error', (error) => {
    log.warn('shell could not start', { error: error.message });
    socket.destroy();
  });
  child.on('exit', (code, signal) => {
    send({ kind: 'exit', code: code ?? (signal ? 128 : 1) });
    socket.end();
  });

  const decode = frameDecoder((frame) => {
    if (frame.kind === 'data') child.stdin!.write(frame.bytes);
    else if (frame.kind === 'resize') {
      wanted = { cols: frame.cols, rows: frame.rows };
      void applySize();
    }
  });
  socket.on('data', (chunk: Buffer) => {
    try {
      decode(chunk);
    } catch (error) {
      log.warn('shell connection closed: bad frame', { error: (error as Error).message });
      socket.destroy();
    }
  });
  // The server hung up (the browser left, the tunnel closed): the shell goes with it.
  socket.on('close', () => endShell(child));
  socket.on('error', () => undefined);
  return child;
}

/** Listens on the tunnel address only; every connection is one shell. */
export async function startShellService(listen: { address: string; port: number }, log: Logger): Promise<ShellService> {
  const sessions = new Map<net.Socket, ChildProcess>();
  const server = net.createServer((socket) => {
    log.info('web console shell opened', { from: socket.remoteAddress });
    const child = serveShell(socket, log);
    sessions.set(socket, child);
    socket.once('close', () => {
      sessions.delete(socket);
      log.info('web console shell closed', { exit_code: child.exitCode });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listen.address, port: listen.port }, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const [socket, child] of sessions) {
        endShell(child);
        socket.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
