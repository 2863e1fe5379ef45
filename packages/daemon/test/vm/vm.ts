/**
 * One QEMU virtual machine (software emulation: KVM does not boot guests on the CI machines) with
 * the test's disk and data disk on virtio, user-mode networking (the host is 10.0.2.2), and its
 * serial console collected line by line into a log file the test prints when it fails. A reboot
 * in the guest restarts the same QEMU process: the firmware runs GRUB again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export class Vm {
  readonly lines: string[] = [];
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(disk: string, dataDisk: string, readonly consoleLog: string) {
    this.child = spawn(
      'qemu-system-x86_64',
      ['-accel', 'tcg', '-m', '1024', '-smp', '1', '-display', 'none', '-monitor', 'none', '-serial', 'stdio',
        '-drive', `file=${disk},format=raw,if=virtio`, '-drive', `file=${dataDisk},format=raw,if=virtio`, '-nic', 'user,model=virtio-net-pci'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const log = fs.createWriteStream(consoleLog);
    let buffered = '';
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        this.lines.push(buffered.slice(0, newline).replace(/\r$/, ''));
        buffered = buffered.slice(newline + 1);
      }
      for (const wake of this.waiters) wake();
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => (log.end(), resolve(code))));
  }

  /** Waits for the `nth` (1-based) console line matching `pattern` and answers it. */
  async waitFor(pattern: RegExp, what: string, timeoutMs: number, nth = 1): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.filter((line) => pattern.test(line));
      if (found.length >= nth) return found[nth - 1]!;
      if (this.child.exitCode !== null) throw new Error(`QEMU exited before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 1000));
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        const waiters = this.waiters;
        waiters.add(done);
      });
    }
  }

  /** The daemon's JSON log lines as printed on the console. */
  daemonLog(): Array<Record<string, unknown>> {
    return this.lines.flatMap((line) => {
      const at = line.indexOf('{"');
      if (at < 0) return [];
      try {
        return [JSON.parse(line.slice(at)) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
