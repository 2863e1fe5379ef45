/**
 * `npm run simulate -- --devices N [...]`: the fleet simulator against a running Canopy server.
 * The defaults match `npm start` on this machine, read from the same settings the server reads
 * (CANOPY_ADMIN_PORT, default 4000; CANOPY_DEVICE_PORT, default 4001; CANOPY_DATA_DIR, default
 * ./data, holding initial-api-key and the device API's generated CA in device-api/ca.pem).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { simulate, simulatorWorkDir } from './simulate.ts';

const ADMIN_PORT = process.env.CANOPY_ADMIN_PORT ?? '4000';
const DEVICE_PORT = process.env.CANOPY_DEVICE_PORT ?? '4001';

const USAGE = `usage: npm run simulate -- --devices N [options]
  --devices N          virtual devices (default 10)
  --admin-url URL      admin API (default http://127.0.0.1:$CANOPY_ADMIN_PORT, 4000)
  --api-key KEY        admin API key (default: the contents of --data-dir/initial-api-key)
  --device-url URL     device API (default https://127.0.0.1:$CANOPY_DEVICE_PORT, 4001)
  --server-ca FILE     the device API's CA (default --data-dir/device-api/ca.pem)
  --data-dir DIR       the server's data dir, for the defaults above (default $CANOPY_DATA_DIR, ./data)
  --poll SECONDS       seconds between a device's checks (default 5)
  --jitter SECONDS     random extra per check (default 2)
  --size BYTES         size of the released binary (default 65536)
  --phase FRACTIONS    phase the release: 0.1,1 publishes it to 10% of the cohort, then to
                       everyone once those run it (default 1)
  --cohort-prn PRN     devices join this existing cohort (default: a new product and cohort)
  --release-prn PRN    watch this existing release of the cohort instead of publishing one
                       (devices trust the organization's signing keys; needs --cohort-prn)
  --timeout SECONDS    give up after this long (default 600)
  --work-dir DIR       where devices keep their files (default: a fresh dir in /dev/shm,
                       or the temp dir without it; removed after)
  --verbose            every device's JSON-lines log on stdout
`;

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        devices: { type: 'string', default: '10' },
        'admin-url': { type: 'string', default: `http://127.0.0.1:${ADMIN_PORT}` },
        'api-key': { type: 'string' },
        'device-url': { type: 'string', default: `https://127.0.0.1:${DEVICE_PORT}` },
        'server-ca': { type: 'string' },
        'data-dir': { type: 'string', default: process.env.CANOPY_DATA_DIR ?? 'data' },
        poll: { type: 'string', default: '5' },
        jitter: { type: 'string', default: '2' },
        size: { type: 'string', default: '65536' },
        phase: { type: 'string' },
        'cohort-prn': { type: 'string' },
        'release-prn': { type: 'string' },
        timeout: { type: 'string', default: '600' },
        'work-dir': { type: 'string' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 64;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const number = (name: string, value: string, min: number) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number of at least ${min}`);
    return n;
  };
  if (values['release-prn'] && (!values['cohort-prn'] || values.phase !== undefined)) {
    process.stderr.write(`--release-prn needs --cohort-prn (its cohort) and takes no --phase\n${USAGE}`);
    return 64;
  }
  const root = path.resolve(findRepositoryRoot(), values['data-dir']!);
  const ownWorkDir = !values['work-dir'];
  const workDir = values['work-dir'] ? path.resolve(values['work-dir']) : simulatorWorkDir();
  try {
    const summary = await simulate({
      adminUrl: values['admin-url']!,
      apiKey: values['api-key'] ?? fs.readFileSync(path.join(root, 'initial-api-key'), 'utf8').trim(),
      deviceUrl: values['device-url']!,
      serverCaPem: fs.readFileSync(values['server-ca'] ?? path.join(root, 'device-api', 'ca.pem'), 'utf8'),
      devices: Math.floor(number('devices', values.devices!, 1)),
      pollSeconds: number('poll', values.poll!, 0.1),
      jitterSeconds: number('jitter', values.jitter!, 0),
      binarySize: Math.floor(number('size', values.size!, 1)),
      phases: values.phase === undefined ? undefined : values.phase.split(',').map((v) => {
        const fraction = number('phase', v, 0);
        if (fraction <= 0 || fraction > 1) throw new Error('--phase takes fractions in (0, 1], comma-separated');
        return fraction;
      }),
      timeoutSeconds: number('timeout', values.timeout!, 1),
      cohortPrn: values['cohort-prn'],
      releasePrn: values['release-prn'],
      workDir,
      verbose: values.verbose,
      write: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return summary.convergeSeconds === null ? 1 : 0;
  } catch (error) {
    process.stderr.write(`simulate: ${(error as Error).message}\n`);
    return 1;
  } finally {
    if (ownWorkDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** npm runs workspace scripts in the workspace's dir; the data dir is the repository's. */
function findRepositoryRoot(): string {
  let dir = process.cwd();
  while (!fs.existsSync(path.join(dir, 'packages', 'daemon')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return fs.existsSync(path.join(dir, 'packages', 'daemon')) ? dir : process.cwd();
}
