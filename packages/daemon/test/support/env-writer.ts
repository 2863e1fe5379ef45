/**
 * A process that rewrites the U-Boot environment in a loop (the daemon's env-file.ts), printing
 * each counter value once its write has returned, so a test can SIGKILL it at any moment and
 * check what is left. Usage: node --import tsx env-writer.ts '<EnvLocations as JSON>' <padding bytes>
 */
import { openEnvironment } from '../../src/uboot-env/index.ts';

const locations = JSON.parse(process.argv[2]);
const padding = 'x'.repeat(Number(process.argv[3] ?? 0));
const env = openEnvironment(locations);
for (let counter = 1; ; counter++) {
  await env.update({ counter: String(counter), padding });
  process.stdout.write(`${counter}\n`);
}
