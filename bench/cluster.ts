/**
 * A cluster losing a process, at fleet size (issue 32, item 4): simulated devices against two
 * server processes on one PostgreSQL and one s3rver behind round-robin TCP proxies, with a webhook
 * receiver and admin writes throughout: the scenario of packages/daemon/test/cluster-failover.test.ts
 * (200 devices in CI), shared in packages/daemon/test/support/cluster-failover.ts. Baseline, same
 * run: a first release at 100% with both processes up. Then a release phased to half the cohort,
 * process 2 killed (SIGKILL) once a third of the phase runs it, and the release opened to all.
 * Printed: convergence times and their ratio to the baseline, the phase's claims against its size,
 * webhook events undelivered, admin writes lost; exit 1 when any of the test's judgements fails.
 * Env: BENCH_CLUSTER_DEVICES (1,000).
 */
import { runClusterFailover } from '../packages/daemon/test/support/cluster-failover';
import { loadAverage } from './lib/cpu-time';
import { POSTGRES_URL } from './lib/postgres';

const DEVICES = Number(process.env.BENCH_CLUSTER_DEVICES ?? 1000);
const POLL = Number(process.env.BENCH_CLUSTER_POLL ?? 5);

console.log(`load average before: ${loadAverage()}`);
const outcome = await runClusterFailover({
  databaseUrl: POSTGRES_URL,
  devices: DEVICES,
  pollSeconds: POLL,
  share: 0.5,
  baseline: true,
  timeoutSeconds: 600,
  write: (line) => {
    if (!/^\s+\d+ s /.test(line)) console.log(line);
  },
});
const seconds = (s: number | null) => (s === null ? 'never' : `${s.toFixed(1)} s`);
const ratio = (s: number | null) => (s === null || !outcome.baselineSeconds ? '-' : `${(s / outcome.baselineSeconds).toFixed(2)}x`);
console.log(`cluster failover, ${DEVICES} devices polling every ${POLL} s (enrolled in ${outcome.enrollSeconds.toFixed(1)} s):`);
console.log(`  baseline release at 100%, both processes up: converged in ${seconds(outcome.baselineSeconds)}`);
console.log(`  release phased to ${outcome.phaseSize}: process 2 killed ${outcome.killedAfterSeconds.toFixed(1)} s after the release began (${outcome.runningAtKill} running it); phase converged in ${seconds(outcome.phaseSeconds)} (${ratio(outcome.phaseSeconds)} the baseline)`);
console.log(`  phase claims: ${outcome.phaseClaimCount} counted, ${outcome.claimEvents} events, ${outcome.claimants} devices, ${outcome.runningAfterPhase} running it (size ${outcome.phaseSize})`);
console.log(`  opened to all on one process: every device in ${seconds(outcome.allSeconds)} (${ratio(outcome.allSeconds)}); ${outcome.runningAtEnd} of ${DEVICES} run it`);
console.log(`  webhooks: ${outcome.releaseChangedEvents} device.release_changed events, ${outcome.undelivered.length} undelivered, ${outcome.deliveries} deliveries received`);
console.log(`  admin writes: ${outcome.answeredWrites} answered, ${outcome.failedWrites} cut off by the kill, ${outcome.lostWrites.length} lost, ${outcome.duplicatedWrites.length} twice, ${outcome.errorAnswers.length} error answers`);
console.log(`  connections to process 1 / 2: admin ${outcome.adminConnections.join(' / ')}, devices ${outcome.deviceConnections.join(' / ')}`);
console.log(`load average after: ${loadAverage()}`);

const size = outcome.phaseSize;
const whole =
  outcome.phaseClaimCount === size && outcome.claimEvents === size && outcome.claimants === size && outcome.runningAfterPhase === size &&
  outcome.runningAtEnd === DEVICES && outcome.undelivered.length === 0 && outcome.lostWrites.length === 0 && outcome.duplicatedWrites.length === 0 && outcome.errorAnswers.length === 0;
if (!whole) {
  console.log('FAILED: the cluster lost something (see above)');
  process.exitCode = 1;
}
