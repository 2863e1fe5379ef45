/**
 * Before/after for the device API's reconnecting handshakes: two or more server bundles against
 * ONE seeded database, their handshake loads alternated round after round. This 2-core machine's
 * speed drifts by a third from one minute to the next, so runs of device-api.ts made minutes
 * apart cannot tell a 10% change; loads alternated within a minute can.
 *
 *   npm run bundle -w @canopy/server && cp -r packages/server/dist packages/server/dist-before
 *   (change the code)
 *   BENCH_BUNDLES=dist-before,current npm run compare:handshakes -w @canopy/bench
 *
 * `current` bundles the working tree's sources; any other name is a directory under
 * packages/server holding a bundle. BENCH_ROUNDS (default 4) rounds of BENCH_SECONDS (default 10).
 */
import { startCanopy, type CanopyProcess } from './lib/canopy';
import { makeDeviceCa, makeDevices } from './lib/device-certificates';
import { enrollFleet } from './lib/fleet-enrollment';
import { formatHandshakes, handshakeLoad } from './lib/handshake-load';
import { withDatabase } from './lib/postgres';
import { WARM_UP_SECONDS } from './lib/warm-up';

const BUNDLES = (process.env.BENCH_BUNDLES ?? 'current').split(',').map((name) => name.trim());
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** As device-api.ts measures them. */
const DEVICES = 10_000;
const HANDSHAKE_DEVICES = 256;
const LOAD = { concurrency: 16, threads: 2, headers: { 'canopy-release-version': '1.0.0' } };

await withDatabase(async (databaseUrl) => {
  const deviceCa = await makeDeviceCa();
  const devices = await makeDevices(deviceCa, DEVICES, HANDSHAKE_DEVICES);
  const clients = devices.slice(-HANDSHAKE_DEVICES).map((d) => ({ certPem: d.certPem, keyPem: d.keyPem }));
  const servers: { name: string; canopy: CanopyProcess }[] = [];
  try {
    for (const name of BUNDLES) {
      // Shedding far above what one machine can do, as in device-api.ts.
      const env = { CANOPY_DEVICE_HANDSHAKE_RATE: '1000000', CANOPY_DEVICE_HANDSHAKE_BURST: '1000000' };
      servers.push({ name, canopy: await startCanopy(databaseUrl, env, name === 'current' ? undefined : name) });
    }
    await enrollFleet(servers[0].canopy, databaseUrl, deviceCa, devices);
    const target = (canopy: CanopyProcess) => ({ url: `https://127.0.0.1:${canopy.devicePort}/update`, ca: canopy.deviceServerCaPem(), clients, ...LOAD });
    for (const { canopy } of servers) await handshakeLoad({ ...target(canopy), seconds: WARM_UP_SECONDS });
    console.log(`reconnecting handshakes, ${HANDSHAKE_DEVICES} devices of ${DEVICES}, ${LOAD.concurrency} at a time, ${ROUNDS} rounds of ${SECONDS} s`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { name, canopy } of servers) {
        const measured = await handshakeLoad({ ...target(canopy), seconds: SECONDS, serverPid: canopy.child.process.pid, databaseUrl });
        console.log(formatHandshakes(`round ${round} ${name}`, measured));
      }
    }
  } finally {
    await Promise.all(servers.map(({ canopy }) => canopy.child.stop()));
  }
});
