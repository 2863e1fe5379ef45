/**
 * `npm start`: runs the platform until SIGTERM or SIGINT, then shuts down gracefully.
 *
 * `npm start` gives node `--max-semi-space-size=32` (V8's default young generation is 16 MB
 * per semi-space): under load every young collection finds the objects of the requests in
 * flight still alive, and with collections twice as far apart far fewer of them live long enough
 * to be promoted. With the default, 64 connections listing devices promoted ~0.5 MB per
 * collection, which set off a full mark-compact (5-20 ms pause) every few hundred milliseconds:
 * most of the list's p99. The young generation costs at most that much more memory.
 */
import { loadConfig } from './config';
import { PRIVATE_UMASK } from './data-dir/private-files';
import { startServer } from './server';

// Every file the server creates from here on is its user's alone (data-dir/private-files.ts).
process.umask(PRIVATE_UMASK);
const server = await startServer(loadConfig(), { announceBootstrap: true });

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  server.platform.log.info({ signal }, 'shutting down');
  // Finish in-flight requests, stop workers, then close the database.
  const timer = setTimeout(() => process.exit(1), 15_000);
  timer.unref();
  await server.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
