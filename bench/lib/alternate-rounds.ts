/**
 * Two loads measured in `rounds` rounds, alternating which goes first (this machine's speed
 * drifts within minutes): the median round's ratio, and each side's rate in that round with its
 * worst p99.
 */
export type Measured = { requestsPerSecond: number; p99: number; non2xx: number; errors: number };

export async function alternateRounds<T extends Measured>(rounds: number, measured: () => Promise<T>, baseline: () => Promise<T>, p99Of: (results: T[]) => number) {
  const done: { measured: T; baseline: T; ratio: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0 ? await measured() : await baseline();
    const second = i % 2 === 0 ? await baseline() : await measured();
    const [m, b] = i % 2 === 0 ? [first, second] : [second, first];
    done.push({ measured: m, baseline: b, ratio: m.requestsPerSecond / b.requestsPerSecond });
  }
  const median = [...done].sort((a, b) => a.ratio - b.ratio)[Math.floor((done.length - 1) / 2)];
  const sum = (results: T[], key: 'non2xx' | 'errors') => results.reduce((n, r) => n + r[key], 0);
  const all = (side: 'measured' | 'baseline') => done.map((round) => round[side]);
  const summary = (side: 'measured' | 'baseline'): Measured => ({
    requestsPerSecond: median[side].requestsPerSecond,
    p99: p99Of(all(side)),
    non2xx: sum(all(side), 'non2xx'),
    errors: sum(all(side), 'errors'),
  });
  return { measured: summary('measured'), baseline: summary('baseline'), ratios: done.map((round) => `${(round.ratio * 100).toFixed(1)}%`).join(', ') };
}
