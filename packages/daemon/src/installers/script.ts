/**
 * The `script` installer: runs `canopy.script.path` with the downloaded file as its only
 * argument. A non-zero exit, a signal, or running past the time limit (the smaller of the
 * metadata's `timeout_seconds` and the daemon's `install_timeout`) fails the install; on timeout
 * the script gets SIGTERM, then SIGKILL 5 s later. Its output goes to the log, a line at a time,
 * capped so a chatty script cannot flood the journal.
 */
import { spawn } from 'node:child_process';
import type { InstallContext, InstallOutcome, Installer } from './installer.ts';

const MAX_LOGGED_LINES = 200;

export const scriptInstaller: Installer = {
  name: 'script',
  install({ file, metadata, config, log, signal }: InstallContext): Promise<InstallOutcome> {
    const script = metadata.script!;
    const limitSeconds = Math.min(script.timeout_seconds, config.install_timeout);
    return new Promise((resolve, reject) => {
      const child = spawn(script.path, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
      let logged = 0;
      let timedOut = false;
      const logLines = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (!line || logged >= MAX_LOGGED_LINES) continue;
          logged += 1;
          log.info('install script output', { stream, line: line.slice(0, 512) });
        }
      };
      child.stdout.on('data', logLines('stdout'));
      child.stderr.on('data', logLines('stderr'));
      let killer: NodeJS.Timeout | undefined;
      const stop = () => {
        child.kill('SIGTERM');
        killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, limitSeconds * 1000);
      const onAbort = () => stop();
      signal.addEventListener('abort', onAbort, { once: true });
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(killer);
        signal.removeEventListener('abort', onAbort);
      };
      child.on('error', (error) => {
        finish();
        reject(new Error(`install script could not start: ${error.message}`));
      });
      child.on('close', (code, killedBy) => {
        finish();
        if (timedOut) return reject(new Error(`install script ran longer than ${limitSeconds} s`));
        if (signal.aborted) return reject(new Error('install interrupted'));
        if (code !== 0) return reject(new Error(killedBy ? `install script killed by ${killedBy}` : `install script exited with ${code}`));
        log.info('install script succeeded', { path: script.path });
        resolve({ rebootRequired: metadata.reboot_required });
      });
    });
  },
};
