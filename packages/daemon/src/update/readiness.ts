/**
 * Device readiness (site/docs/canopy-core/tools/canopy-daemon/overview.md): before downloading
 * an offered update the daemon runs the configured `readiness_command`. Exit 0 = ready; any
 * other exit, a signal, a failure to start or the timeout = not now, with the first line of
 * its stdout (or what went wrong) as the reason. The daemon then asks again at its next poll.
 */
import { spawn } from 'node:child_process';

export type Readiness = { ready: true } | { ready: false; reason: string };

const MAX_REASON = 256;

export function checkReadiness(argv: readonly string[], timeoutSeconds: number): Promise<Readiness> {
  return new Promise((resolve) => {
    let stdout = '';
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], timeout: timeoutSeconds * 1000, killSignal: 'SIGKILL' });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < 4096) stdout += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ ready: false, reason: `readiness command did not start: ${error.code ?? error.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve({ ready: true });
      const line = stdout.split('\n')[0].trim().slice(0, MAX_REASON);
      if (signal === 'SIGKILL') return resolve({ ready: false, reason: line || `readiness command timed out after ${timeoutSeconds} s` });
      resolve({ ready: false, reason: line || (signal ? `readiness command killed by ${signal}` : `readiness command exited ${code}`) });
    });
  });
}
