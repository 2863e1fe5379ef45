/** `npm start`: runs the platform until SIGTERM or SIGINT, then shuts down gracefully. */
import { loadConfig } from './config';
import { startServer } from './server';

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
