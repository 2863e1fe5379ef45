/**
 * `canopy-daemon init DIR`: a device to try updates with, in one folder, against a running server.
 *
 * The identity comes by just-in-time provisioning, the way the simulator's devices get theirs
 * (simulator/fleet-setup.ts): a CA made here is registered with proof of possession and JITP
 * settings naming the cohort, and the device certificate it issues makes the server create the
 * device on its first connection. That needs the admin API only for the CA, so the same command
 * works for any cohort without a device record to create first, and the CA key is thrown away:
 * nothing else can be issued from it. All server calls come first; files are written only after.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { adminApi } from '../admin-api.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../config/schema.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { INIT_USAGE, parseInitArgs, type InitOptions } from './options.ts';
import { rebootLog, signingKeyPem, trialConfig, trialMetadata, trialTarget, TRIAL_FILES } from './trial-files.ts';
import { issue } from './x509.ts';

class InitError extends Error {}

function readFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new InitError(`cannot read ${what} ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

async function setUp(options: InitOptions, out: (line: string) => void): Promise<void> {
  const existing = Object.values(TRIAL_FILES).filter((name) => fs.existsSync(path.join(options.dir, name)));
  if (existing.length > 0 && !options.force) throw new InitError(`${options.dir} already holds a setup (${existing.join(', ')}); --force replaces it`);
  const serverCa = readFile(options.serverCa, 'the device API CA (--server-ca)');
  const apiKey = options.apiKey ?? readFile(options.apiKeyFile, 'the admin API key (--api-key)').trim();
  const api = adminApi(options.adminUrl, apiKey);

  const cohort = (await api('GET', `/cohorts/${encodeURIComponent(options.cohortPrn)}`)).cohort;
  const product = (await api('GET', `/products/${encodeURIComponent(cohort.product_prn)}`)).product;
  const releaseKey = signingKeyPem((await api('GET', `/signing_keys/${encodeURIComponent(options.signingKeyPrn)}`)).signing_key.value);

  const ca = issue(`canopy-daemon init CA for ${options.identifier}`, null, { ca: true, days: 3650 });
  const code = (await api('POST', '/ca_certificates/verification_codes')).verification_code;
  const proof = issue(code, ca, { ca: false, days: 1 });
  await api('POST', '/ca_certificates', {
    certificate: Buffer.from(ca.certPem).toString('base64'),
    verification_certificate: Buffer.from(proof.certPem).toString('base64'),
    description: `canopy-daemon init: trial device ${options.identifier}`,
    jitp: { description: 'trial device (canopy-daemon init)', tags: ['trial'], product_name: product.name, cohort_prn: cohort.prn, target: options.target },
  });
  const device = issue(options.identifier, ca, { ca: false, days: 365 });

  fs.mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  if (options.force) for (const dir of ['state', 'downloads']) fs.rmSync(path.join(options.dir, dir), { recursive: true, force: true });
  const write = (name: string, text: string, mode: number) => writeFileAtomic(path.join(options.dir, name), text, mode);
  await write(TRIAL_FILES.certificate, device.certPem, 0o600);
  await write(TRIAL_FILES.key, device.keyPem, 0o600);
  await write(TRIAL_FILES.serverCa, serverCa, 0o644);
  await write(TRIAL_FILES.releaseKey, releaseKey, 0o644);
  await write(TRIAL_FILES.metadata, `${JSON.stringify(trialMetadata(options.dir), null, 2)}\n`, 0o644);
  const configFile = path.join(options.dir, TRIAL_FILES.config);
  await write(TRIAL_FILES.config, `${JSON.stringify(trialConfig(options.dir, options.deviceUrl, options.poll), null, 2)}\n`, 0o600);
  loadConfig(configFile, {}); // what check-config does: every file it names must read back

  out(`canopy-daemon init: device ${options.identifier} (product ${product.name}, cohort ${cohort.prn}, target ${options.target}) set up in ${options.dir}:`);
  out(`  ${TRIAL_FILES.config}  configuration: device API ${options.deviceUrl}, a check every ${options.poll} s, reboots only recorded in ${path.basename(rebootLog(options.dir))}`);
  out(`  ${TRIAL_FILES.certificate}, ${TRIAL_FILES.key}  the device's certificate and key, from a CA registered with just-in-time provisioning`);
  out(`  ${TRIAL_FILES.serverCa}  the device API's CA (${options.serverCa})`);
  out(`  ${TRIAL_FILES.releaseKey}  the public key of ${options.signingKeyPrn}`);
  out(`  ${TRIAL_FILES.metadata}  custom metadata for this trial's binaries: the file installer, writing ${trialTarget(options.dir)}`);
  out(`run it: canopy-daemon --config ${configFile}`);
}

export async function runInit(argv: readonly string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(INIT_USAGE);
    return 0;
  }
  const options = parseInitArgs(argv, env, randomBytes(2).toString('hex'));
  if (typeof options === 'string') {
    process.stderr.write(`canopy-daemon init: ${options}\n${INIT_USAGE}`);
    return 64;
  }
  try {
    await setUp(options, (line) => process.stdout.write(`${line}\n`));
    return 0;
  } catch (error) {
    const reason = error instanceof ConfigError ? `the configuration written does not load: ${error.message}` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`canopy-daemon init: ${reason}\n`);
    return 1;
  }
}
