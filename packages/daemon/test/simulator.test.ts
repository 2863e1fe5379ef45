/**
 * The fleet simulator against a real server: virtual devices admitted by JITP with their own
 * certificates, over real mutual TLS, converge on a release through the daemon's own update
 * agent; the server sees every device report the release. Then a phased release reaches only
 * its share of the cohort.
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { useSimulatorServer } from './support/simulator-server';
import { simulate, startFleet } from '../src/simulator/simulate';

const server = useSimulatorServer();

const run = (devices: number, extra: { phases?: number[]; timeoutSeconds?: number; cohortPrn?: string; releasePrn?: string } = {}) => {
  const lines: string[] = [];
  return simulate({
    ...server.target(),
    devices,
    pollSeconds: 1,
    jitterSeconds: 0.5,
    binarySize: 32 * 1024,
    timeoutSeconds: extra.timeoutSeconds ?? 120,
    phases: extra.phases,
    cohortPrn: extra.cohortPrn,
    releasePrn: extra.releasePrn,
    write: (line) => lines.push(line),
  }).then((summary) => ({ summary, lines }));
};

it('converges a fleet of virtual devices on a release, each reporting it to the server', async () => {
  const { summary, lines } = await run(20);
  expect(summary.convergeSeconds, lines.join('\n')).not.toBeNull();
  expect(summary).toMatchObject({ devices: 20, installed: 20, failedReports: 0 });
  expect(lines.some((l) => /^\s+\d+ s\s+idle \d+/.test(l))).toBe(true);
  expect(lines.at(-1)).toMatch(/^converged: 20 of 20 devices run the release/);
  // It finished only once the server had every device's report of the release.
  expect(summary.serverOnRelease).toBe(20);
  expect((await server.t.api('GET', `/releases/${summary.releasePrn}/rollout`)).body.rollout.on_release).toBe(20);

  // The server's view: 20 devices admitted by JITP, each with an installed report for the release.
  const reports = await server.t.api('GET', `/events?type=device&subtype=update_reported&limit=100`);
  const installed = reports.body.events.filter((e: any) => e.data.data.status === 'installed' && e.data.data.release === summary.releasePrn);
  expect(new Set(installed.map((e: any) => e.resource_prn)).size).toBe(20);
  // Each virtual device wrote the binary into its own directory.
  const written = fs.readdirSync(server.workDir).filter((d) => fs.existsSync(`${server.workDir}/${d}/root/opt/app/app.bin`));
  expect(written.length).toBeGreaterThanOrEqual(20);
});

it('a release phased to a quarter of the cohort reaches a quarter of the devices, then everyone', async () => {
  const quarter = await run(8, { phases: [0.25] });
  expect(quarter.summary.convergeSeconds, quarter.lines.join('\n')).not.toBeNull();
  expect(quarter.summary.installed).toBe(2);
  expect(quarter.summary.phases.idle).toBe(6);

  const { summary, lines } = await run(8, { phases: [0.25, 1] });
  expect(summary.phaseSeconds.every((s) => s !== null), lines.join('\n')).toBe(true);
  expect(summary.installed).toBe(8);
  expect(lines).toContain('release phased to 1');
});

it('enrols a few devices at a time, each counted once the server admitted it and answered its first check', async () => {
  const checked = new Set<number>();
  const lines: string[] = [];
  const fleet = await startFleet({
    ...server.target(),
    devices: 9,
    enrollingAtOnce: 3,
    pollSeconds: 60,
    jitterSeconds: 0,
    binarySize: 1024,
    write: (line) => lines.push(line),
    onTransition: (index, _state, event) => {
      if (event.type === 'checked') checked.add(index);
    },
  });
  try {
    // Resolved only once every device checked in: with a 60 s poll, each has checked exactly once.
    expect(checked.size, lines.join('\n')).toBe(9);
    const search = encodeURIComponent(`cohort_prn:'${fleet.cohortPrn}'`);
    const counts = await server.t.api('GET', `/devices/counts?search=${search}`);
    expect(counts.body.device_counts).toMatchObject({ total: 9, never_connected: 0 });
    expect(lines.at(-1)).toMatch(/^9 virtual devices enrolled in [\d.]+ s/);
  } finally {
    await fleet.stop();
  }
});

it('joins an existing cohort and installs its existing release, signed by the organization', async () => {
  const first = await run(2);
  const { cohort_prn: cohortPrn } = (await server.t.api('GET', `/releases/${first.summary.releasePrn}`)).body.release;
  const { summary, lines } = await run(3, { cohortPrn, releasePrn: first.summary.releasePrn });
  expect(summary.convergeSeconds, lines.join('\n')).not.toBeNull();
  expect(summary).toMatchObject({ releasePrn: first.summary.releasePrn, installed: 3, serverOnRelease: 3 });
  expect(lines).toContain(`watching release ${first.summary.releasePrn}`);
  expect((await server.t.api('GET', `/releases/${first.summary.releasePrn}/rollout`)).body.rollout.on_release).toBe(5);
  expect((await server.t.api('GET', `/cohorts/${cohortPrn}`)).body.cohort.prn).toBe(cohortPrn);
});

it('a release changing 1% of the last one reaches the fleet as deltas: the bytes the fleet saves', async () => {
  const lines: string[] = [];
  const fleet = await startFleet({ ...server.target(), devices: 4, pollSeconds: 1, jitterSeconds: 0.5, binarySize: 1024 * 1024, write: (line) => lines.push(line) });
  try {
    const first = await fleet.release({ timeoutSeconds: 120 });
    expect(first.transfers, lines.join('\n')).toEqual({ fullBytes: 4 * 1024 * 1024, wireBytes: 4 * 1024 * 1024, deltasUsed: 0, deltaFallbacks: 0 });
    const second = await fleet.release({ timeoutSeconds: 120, changeOfLast: 0.01 });
    expect(second.installed, lines.join('\n')).toBe(4);
    expect(second.transfers).toMatchObject({ fullBytes: 4 * 1024 * 1024, deltasUsed: 4, deltaFallbacks: 0 });
    expect(second.transfers.wireBytes).toBeLessThan(second.transfers.fullBytes / 10);
    expect(lines).toContainEqual(expect.stringMatching(/^bytes: \d+ fetched for 4194304 of binaries \(4 by delta, 0 fell back\)$/));
  } finally {
    await fleet.stop();
  }
});
