/**
 * The fleet benchmark (issue 27): BENCH_FLEET_DEVICES simulated devices (default 10,000; the
 * simulator of packages/daemon, one process, real mutual TLS, JITP) against one Canopy server
 * process on PostgreSQL, a release at 100%: the time until every device runs it (reports
 * `installed` and checks with the new release), the server's CPU per update check, and the peak
 * RSS of the server and of the simulator. Then a second release to the same fleet, phased: 10%,
 * then 100% once those run it (the time of each step). Then a third, the second's binary with 1%
 * of its blocks changed, which devices take as a delta: the fleet's bytes, full against delta. The fleet is enrolled once, 32 devices at a
 * time (simulate.ts), before the first release: enrolling (a certificate made in-process per
 * device, and its JITP admission) is the slowest part at this size.
 *
 * Devices check every BENCH_FLEET_POLL seconds (default 45) with up to 5 s of jitter. The fleet
 * offers N / (poll + 2.5 s) checks a second whatever the server does, and each costs the
 * simulator and the server together about 4.3 ms of CPU, PostgreSQL's on top (measured at 600
 * devices kept alive, load 27 on 2 cores: simulator 2.4 ms, server 1.9 ms): 10,000 devices at
 * 10 s offer 800 checks a second, about 3.5 cores, more than the shared 2-core machine has, and
 * a fleet offered more than it can serve piles its checks up until they time out and come back
 * as new handshakes. 45 s offers about 210 a second. Not more than 55 s: the device client
 * closes a connection idle for 60 s (the server at 72 s), so from then on every check is a new
 * handshake and JITP-checked admission (about 17 ms of server CPU and 16 ms of the
 * simulator's, against 2-4 ms for a check on a kept-alive connection). Every progress line
 * carries the time and the load average.
 */
import fs from 'node:fs';
import pg from 'pg';
import { simulatorWorkDir, startFleet } from '../packages/daemon/src/simulator/simulate';
import { startCanopy } from './lib/canopy';
import { databaseCpuClock, loadAverage, processCpuMs } from './lib/cpu-time';
import { withDatabase } from './lib/postgres';

const DEVICES = Number(process.env.BENCH_FLEET_DEVICES ?? 10_000);
const POLL = Number(process.env.BENCH_FLEET_POLL ?? 45);

/** Update checks recorded so far (each check records one checked_for_release event). */
async function checks(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(`select count(*)::int as checks from events where subtype = 'checked_for_release'`)).rows[0].checks as number;
  } finally {
    await client.end();
  }
}


await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl);
  const workDir = simulatorWorkDir();
  const pid = canopy.child.process.pid!;
  try {
    const fleet = await startFleet({
      adminUrl: canopy.url,
      apiKey: canopy.apiKey,
      deviceUrl: `https://127.0.0.1:${canopy.devicePort}`,
      serverCaPem: canopy.deviceServerCaPem(),
      devices: DEVICES,
      pollSeconds: POLL,
      jitterSeconds: 5,
      binarySize: 64 * 1024,
      workDir,
      write: (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} [load ${loadAverage()}] ${line}`),
    });
    try {
      const cpuBefore = processCpuMs(pid);
      const simulatorCpu = process.cpuUsage();
      const database = await databaseCpuClock(databaseUrl);
      const checksBefore = await checks(databaseUrl);
      const first = await fleet.release({ timeoutSeconds: 1200 });
      const serverCpuMs = processCpuMs(pid) - cpuBefore;
      const databaseCpuMs = await database.stop();
      const simulatorUsage = process.cpuUsage(simulatorCpu);
      const simulatorCpuMs = (simulatorUsage.user + simulatorUsage.system) / 1000;
      const checked = (await checks(databaseUrl)) - checksBefore;
      console.log(`fleet of ${DEVICES}, poll ${POLL} s + up to 5 s: converged in ${first.convergeSeconds?.toFixed(1) ?? 'never'} s after the release (enrolment ${fleet.enrollSeconds.toFixed(1)} s)`);
      console.log(`server CPU ${(serverCpuMs / 1000).toFixed(1)} s over ${checked} update checks while converging -> ${(serverCpuMs / Math.max(checked, 1)).toFixed(2)} ms per check (reports, downloads and handshakes included); PostgreSQL ${(databaseCpuMs / Math.max(checked, 1)).toFixed(2)} ms, simulator ${(simulatorCpuMs / Math.max(checked, 1)).toFixed(2)} ms per check`);
      console.log(`peak RSS: server ${canopy.child.peakRssMb().toFixed(0)} MiB, simulator ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; load average ${loadAverage()}`);

      const phased = await fleet.release({ phases: [0.1, 1], timeoutSeconds: 1200 });
      const [tenth, all] = phased.phaseSeconds.map((s) => (s === null ? 'never' : `${s.toFixed(1)} s`));
      console.log(`phased release to ${DEVICES}: 10% ran it after ${tenth}, everyone after ${all ?? 'never'} (from publishing); load average ${loadAverage()}`);

      // Issue 43: the same binary with 1% of its blocks changed, offered as a delta to everyone.
      const delta = await fleet.release({ timeoutSeconds: 1200, changeOfLast: 0.01 });
      const t = delta.transfers;
      console.log(
        `delta release to ${DEVICES}: converged in ${delta.convergeSeconds?.toFixed(1) ?? 'never'} s; bytes on the wire ${t.wireBytes} for ${t.fullBytes} of full binaries ` +
          `(${((100 * t.wireBytes) / Math.max(t.fullBytes, 1)).toFixed(1)}%, saved ${t.fullBytes - t.wireBytes}); ${t.deltasUsed} devices took the delta, ${t.deltaFallbacks} fell back`,
      );
    } finally {
      await fleet.stop();
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
    await canopy.child.stop();
  }
});
