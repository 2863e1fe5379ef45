/**
 * GET /devices/counts with 100,000 devices on PostgreSQL: the latency of the counts (all devices,
 * and filtered by the search language), one request at a time, beside GET /devices?limit=100 (a
 * page of the same fleet) measured in the same run. The console's fleet view asks for both.
 */
import { startCanopy } from './lib/canopy';
import { withDatabase } from './lib/postgres';
import { seedFleet } from './lib/seed-fleet';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

async function median(url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.text();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    if (i >= 3) times.push(performance.now() - started); // the first three warm up
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl);
  try {
    await seedFleet(databaseUrl, DEVICES);
    const headers = { authorization: `Bearer ${canopy.apiKey}` };
    const q = (search: string) => `search=${encodeURIComponent(search)}`;
    const page = await median(`${canopy.url}/devices?limit=100`, headers);
    const pageFiltered = await median(`${canopy.url}/devices?limit=100&${q("tags:'east'")}`, headers);
    const all = await median(`${canopy.url}/devices/counts`, headers);
    const filtered = await median(`${canopy.url}/devices/counts?${q("tags:'east'")}`, headers);
    const quarantined = await median(`${canopy.url}/devices/counts?${q('quarantined:true')}`, headers);
    const answer = await (await fetch(`${canopy.url}/devices/counts`, { headers })).json();
    console.log(`\nGET /devices/counts with ${DEVICES} devices on PostgreSQL, median of ${ROUNDS} sequential requests`);
    console.log(`  answer: ${JSON.stringify(answer)}`);
    console.log(`  GET /devices?limit=100 (baseline): ${page.toFixed(1)} ms; with search tags:'east': ${pageFiltered.toFixed(1)} ms`);
    console.log(`  GET /devices/counts: ${all.toFixed(1)} ms (${(all / page).toFixed(2)}x the page)`);
    console.log(`  GET /devices/counts?search=tags:'east': ${filtered.toFixed(1)} ms (${(filtered / pageFiltered).toFixed(2)}x the filtered page)`);
    console.log(`  GET /devices/counts?search=quarantined:true: ${quarantined.toFixed(1)} ms`);
  } finally {
    await canopy.child.stop();
  }
});
