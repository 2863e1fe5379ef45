/**
 * The PTY service without a tunnel (on 127.0.0.1, so it runs anywhere `script` and `stty` do, root
 * or not): a real shell answers `echo`, Ctrl-C interrupts the foreground job, a resize reaches
 * the terminal, `exit` sends its code then closes, and closing the service kills a live shell.
 * Through a real tunnel and a browser: packages/console/test/browser/shell.test.ts.
 */
import fs from 'node:fs';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { encodeFrame, frameDecoder, type ShellFrame } from '@canopy/sdk/shell-frames';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { startShellService, type ShellService } from './shell-service.ts';

const missing = ['script', 'stty'].find((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missing) console.warn(`skipping the shell service tests: needs ${missing} (util-linux)`);

const log = createLogger({ level: 'error', write: () => undefined });

function client(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  let text = '';
  const frames: ShellFrame[] = [];
  socket.on('data', frameDecoder((frame) => {
    frames.push(frame);
    if (frame.kind === 'data') text += frame.bytes.toString('utf8');
  }));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    type: (data: string) => socket.write(encodeFrame({ kind: 'data', bytes: Buffer.from(data) })),
    resize: (cols: number, rows: number) => socket.write(encodeFrame({ kind: 'resize', cols, rows })),
    /** Waits until the output so far has a line matching `pattern`. */
    async sees(pattern: RegExp, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      // Lines as a terminal would show them: escape sequences dropped, a carriage return rewinds.
      // Input typed before the shell's first prompt (or after Ctrl-C) is echoed by the terminal
      // at once, and the prompt then lands in front of the output ("# hello"): a leading prompt
      // (the shell's own: "$ ", "# ", "bash-5.2# ") is dropped too.
      const lines = () => text.split('\n').map((line) => line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r$/, '').split('\r').at(-1)!.replace(/^\S*[#$%>] /, ''));
      while (!lines().some((line) => pattern.test(line))) {
        if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in ${JSON.stringify(text.slice(-500))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    text: () => text,
    frames,
    closed,
  };
}

describe.skipIf(missing !== undefined)('shell service (real PTY)', () => {
  let service: ShellService | null = null;
  afterEach(async () => {
    await service?.close();
    service = null;
  });

  it('runs commands, interrupts with Ctrl-C, resizes, and sends the exit code before closing', async () => {
    service = await startShellService({ address: '127.0.0.1', port: 0 }, log);
    const shell = client(service.port);
    shell.resize(91, 27);
    shell.type('echo hel""lo\r');
    await shell.sees(/^hello$/);
    shell.type('stty size\r');
    await shell.sees(/^27 91$/);
    const started = Date.now();
    shell.type('sleep 30\r');
    await new Promise((resolve) => setTimeout(resolve, 300));
    shell.type('\x03');
    shell.type('echo after-$((40+2))\r');
    await shell.sees(/^after-42$/);
    expect(Date.now() - started).toBeLessThan(20_000);
    shell.type('exit 7\r');
    await shell.closed;
    expect(shell.frames.at(-1)).toEqual({ kind: 'exit', code: 7 });
  });

  it('kills a live shell when the service closes (the tunnel went down)', async () => {
    service = await startShellService({ address: '127.0.0.1', port: 0 }, log);
    const shell = client(service.port);
    shell.type('echo shell-pid-$$\r');
    await shell.sees(/^shell-pid-\d+$/);
    const pid = Number(/shell-pid-(\d+)/.exec(shell.text().split('shell-pid-$$').at(-1)!)![1]);
    await service.close();
    service = null;
    await shell.closed;
    // Gone, or a zombie waiting for whoever inherited it to reap it.
    const alive = () => {
      try {
        return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 5000 }).toBe(false);
  });
});
