/**
 * canopy-daemon's footprint and speed, each beside a baseline measured in the same run
 * (issue 27 targets in brackets):
 *  - idle RSS of the bundled daemon polling an HTTPS (mutual TLS) endpoint every 10 s, beside a
 *    bare node process polling the same endpoint with a kept-alive https.Agent [<= 1.5x];
 *  - download throughput of the daemon's downloader (download/download-entry.ts: hashing and
 *    size checks while streaming, fsync at the end) beside curl fetching the same file from the
 *    same TLS server [>= 80%];
 *  - verification (SHA-256 of the file plus the Ed25519 check) beside sha256sum [>= 70%].
 * The server is a small node process of its own (answers GET /update, POST /update/reports and
 * serves the file), so it does not share the measured process. BENCH_DAEMON_MIB sets the file
 * size (default 256), BENCH_DAEMON_IDLE_SECONDS the idle time (default 25),
 * BENCH_DAEMON_DOWNLOAD_RUNS the download runs, alternating with curl (default 5, medians).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAverage } from './lib/cpu-time';
import { downloadEntry } from '../packages/daemon/src/download/download-entry';
import { sha256File } from '../packages/daemon/src/verify/hash-file';
import { checkSignatures } from '../packages/daemon/src/verify/signatures';
import { ROOT } from './lib/processes';

const MIB = Number(process.env.BENCH_DAEMON_MIB ?? 256);
const IDLE_SECONDS = Number(process.env.BENCH_DAEMON_IDLE_SECONDS ?? 25);
const DOWNLOAD_RUNS = Number(process.env.BENCH_DAEMON_DOWNLOAD_RUNS ?? 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-daemon-'));
const at = (name: string) => path.join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });

function certificates() {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=bench CA');
  for (const [name, extra] of [['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], ['client', 'extendedKeyUsage=clientAuth']] as const) {
    openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=bench-${name}`);
    fs.writeFileSync(at(`${name}.ext`), `${extra}\n`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
  }
}

const SERVER = `
const https = require('node:https'); const fs = require('node:fs');
const [key, cert, ca, file] = process.argv.slice(1);
const size = fs.statSync(file).size;
const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert), ca: fs.readFileSync(ca), requestCert: true, rejectUnauthorized: false }, (req, res) => {
  if (req.url.startsWith('/update/reports')) { req.resume(); res.writeHead(201, { 'content-type': 'application/json' }); return res.end('{"data":{}}'); }
  if (req.url.startsWith('/update')) { res.writeHead(200, { 'content-type': 'application/json' }); return res.end('{"status":"no_update"}'); }
  const range = /^bytes=(\\d+)-$/.exec(req.headers.range || '');
  const start = range ? Number(range[1]) : 0;
  res.writeHead(range ? 206 : 200, { 'content-length': size - start, ...(range ? { 'content-range': 'bytes ' + start + '-' + (size - 1) + '/' + size } : {}) });
  fs.createReadStream(file, { start, highWaterMark: 1 << 20 }).pipe(res);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const POLLER = `
const https = require('node:https'); const fs = require('node:fs');
const [url, cert, key, ca] = process.argv.slice(1);
const agent = new https.Agent({ keepAlive: true, cert: fs.readFileSync(cert), key: fs.readFileSync(key), ca: fs.readFileSync(ca) });
const poll = () => https.get(url, { agent }, (res) => { res.resume(); });
poll(); setInterval(poll, 10000);
`;

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const best = async (runs: number, fn: () => Promise<unknown> | unknown) => {
  let fastest = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn();
    fastest = Math.min(fastest, seconds(start));
  }
  return fastest;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ratio = (ours: number, baseline: number) => `${(ours / baseline).toFixed(2)}x`;

async function main() {
  certificates();
  const file = at('payload.bin');
  const handle = fs.openSync(file, 'w');
  for (let i = 0; i < MIB; i++) fs.writeSync(handle, randomBytes(1 << 20));
  fs.closeSync(handle);

  const server: ChildProcess = spawn(process.execPath, ['-e', SERVER, at('server.key'), at('server.pem'), at('ca.pem'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => server.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const base = `https://127.0.0.1:${port}`;
  const children: ChildProcess[] = [server];
  try {
    // Verification beside sha256sum.
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    let hash = '';
    const sha256sum = await best(3, () => {
      hash = execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0];
    });
    const signature = sign(null, Buffer.from(hash, 'ascii'), privateKey).toString('hex');
    const verify = await best(3, async () => {
      const ours = await sha256File(file);
      if (ours.hash !== hash || !checkSignatures(ours.hash, [{ signature, signing_key_prn: 'k' }], [{ id: 'k', key: publicKey }], 1).ok) throw new Error('verification disagrees');
    });
    console.log(`verification of ${MIB} MiB: daemon ${(MIB / verify).toFixed(0)} MiB/s, sha256sum ${(MIB / sha256sum).toFixed(0)} MiB/s -> ${ratio(sha256sum, verify)} of sha256sum's speed [target >= 0.70x]; load average ${loadAverage()}`);

    // Download throughput beside curl, same TLS server, same file.
    const entry = { binary_prn: 'b', artifact: { prn: 'a', name: 'a' }, artifact_version: { prn: 'v', version: '1' }, custom_metadata: null, hash, size: MIB << 20, target: 't', url: `${base}/file`, signatures: [] };
    const caPem = fs.readFileSync(at('ca.pem'));
    const downloads = at('downloads');
    // Alternately, so load from the machine's other users falls on both alike; medians. The CPU
    // time each spends per MiB is printed too: on a loaded machine it varies less than the speed.
    const ourTimes: number[] = [];
    const ourCpu: number[] = [];
    const curlTimes: number[] = [];
    const curlCpu: number[] = [];
    const curl = `curl -fsS --cacert ${at('ca.pem')} --cert ${at('client.pem')} --key ${at('client.key')} -o ${at('curl.bin')} ${base}/file`;
    for (let i = 0; i < DOWNLOAD_RUNS; i++) {
      fs.rmSync(downloads, { recursive: true, force: true });
      const cpu = process.cpuUsage();
      let start = process.hrtime.bigint();
      await downloadEntry(entry, { dir: downloads, signal: new AbortController().signal, caPem });
      ourTimes.push(seconds(start));
      const used = process.cpuUsage(cpu);
      ourCpu.push((used.user + used.system) / 1e6);
      start = process.hrtime.bigint();
      // bash's `times` prints the children's user and system time on its second line.
      const times = execFileSync('bash', ['-c', `${curl}; times`], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
      curlTimes.push(seconds(start));
      curlCpu.push([...times.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0));
      console.log(`  download run ${i + 1}: daemon ${(MIB / ourTimes[i]).toFixed(0)} MiB/s, curl ${(MIB / curlTimes[i]).toFixed(0)} MiB/s (${ratio(curlTimes[i], ourTimes[i])}); load average ${loadAverage()}`);
    }
    const [daemonDownload, curlDownload] = [median(ourTimes), median(curlTimes)];
    const perMiB = (cpu: number[]) => `${((median(cpu) * 1000) / MIB).toFixed(2)} ms CPU/MiB`;
    console.log(
      `download of ${MIB} MiB over TLS, medians of ${DOWNLOAD_RUNS} alternate runs: daemon ${(MIB / daemonDownload).toFixed(0)} MiB/s, ${perMiB(ourCpu)} (size and SHA-256 checked, fsynced), ` +
        `curl ${(MIB / curlDownload).toFixed(0)} MiB/s, ${perMiB(curlCpu)} -> ${ratio(curlDownload, daemonDownload)} of curl's speed [target >= 0.80x]; ` +
        `median of the runs' ratios ${median(ourTimes.map((t, i) => curlTimes[i] / t)).toFixed(2)}x; load average ${loadAverage()}`,
    );
    fs.rmSync(downloads, { recursive: true, force: true });
    fs.rmSync(at('curl.bin'), { force: true });

    // Idle RSS beside a bare node poller.
    execFileSync(process.execPath, [path.join(ROOT, 'packages/daemon/scripts/bundle.mjs')]);
    const keyFile = at('trusted.pub.pem');
    fs.writeFileSync(keyFile, publicKey.export({ format: 'pem', type: 'spki' }));
    const config = at('daemon.json');
    fs.writeFileSync(config, JSON.stringify({
      device_api: { url: base, certificate_path: at('client.pem'), private_key_path: at('client.key'), server_ca_path: at('ca.pem') },
      update_poll_interval: 10, update_jitter: 0, trusted_signing_keys: [keyFile], download_dir: at('d'), state_dir: at('s'),
      remote_access_tunnels: { enabled: false }, log_level: 'warn',
    }));
    const daemon = spawn(process.execPath, [path.join(ROOT, 'packages/daemon/dist/canopy-daemon.mjs'), '--config', config], { stdio: 'ignore' });
    const poller = spawn(process.execPath, ['-e', POLLER, `${base}/update`, at('client.pem'), at('client.key'), at('ca.pem')], { stdio: 'ignore' });
    children.push(daemon, poller);
    await sleep(IDLE_SECONDS * 1000);
    const [daemonRss, pollerRss] = [rssMiB(daemon.pid!), rssMiB(poller.pid!)];
    console.log(`idle RSS after ${IDLE_SECONDS} s polling every 10 s: daemon ${daemonRss.toFixed(1)} MiB, bare node poller ${pollerRss.toFixed(1)} MiB -> ${ratio(daemonRss, pollerRss)} [target <= 1.5x]; load average ${loadAverage()}`);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
