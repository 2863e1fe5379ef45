/**
 * `canopy-daemon enrol`: a device with no certificate yet enrols itself with a claim token
 * (docs/decisions/007-claim-tokens.md). It keeps a P-256 key at `device_api.private_key_path`
 * (made on the first run, reused after, so a reclaim an admin approves later is answered to the
 * same key), presents a self-signed certificate for it over TLS to `POST /device/claim`, and
 * writes the certificate it gets to `device_api.certificate_path`.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import { readConfigFile } from '../config/load.ts';
import { ConfigError } from '../config/schema.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { issue } from '../init/x509.ts';
import { ENROL_EXIT, ENROL_USAGE, parseEnrolArgs } from './options.ts';

export interface ClaimAnswer {
  status: number;
  body: { status?: string; device_prn?: string; certificate?: string | null; device_reclaim_prn?: string | null; errors?: { code: string }[] };
}

/** The device's key: the one at `file` when it is a P-256 key, else a new one written there first. */
async function deviceKey(file: string): Promise<{ key: KeyObject; created: boolean }> {
  if (fs.existsSync(file)) {
    let key: KeyObject;
    try {
      key = createPrivateKey(fs.readFileSync(file));
    } catch {
      throw new ConfigError('device_api.private_key_path', `${file} is not a PEM private key`);
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new ConfigError('device_api.private_key_path', `${file} is not a P-256 key, which a claim needs`);
    }
    return { key, created: false };
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFileAtomic(file, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  return { key: privateKey, created: true };
}

function postClaim(url: string, tls: { certPem: string; keyPem: string; caPem?: Buffer }, body: object): Promise<ClaimAnswer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      new URL('/device/claim', url),
      { method: 'POST', cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, timeout: 30_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          let parsed: ClaimAnswer['body'] = {};
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            // not JSON: reported by status below
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 30 s')));
    request.on('error', reject);
    request.end(payload);
  });
}

function readToken(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError('--token-file', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text) throw new ConfigError('--token-file', `${file} is empty`);
  return text;
}

/** What an answer means for the device, in words, and the exit code it gets. */
export function outcomeOf(answer: ClaimAnswer): { exit: number; message: string } {
  const code = answer.body.errors?.[0]?.code ?? `HTTP ${answer.status}`;
  if ((answer.status === 200 || answer.status === 201) && answer.body.certificate) {
    return { exit: ENROL_EXIT.enrolled, message: `enrolled as ${answer.body.device_prn}` };
  }
  if (answer.status === 202) {
    return {
      exit: ENROL_EXIT.pending,
      message: `this identifier is enrolled with another key: reclaim ${answer.body.device_reclaim_prn} waits for an admin (canopy device-reclaims approve); run enrol again after, with the same key`,
    };
  }
  if (answer.status === 429) return { exit: ENROL_EXIT.pending, message: 'too many refused claims from this address (too_many_claim_failures): try again in a minute' };
  if (answer.status === 401 || answer.status === 403) return { exit: ENROL_EXIT.refused, message: `the server refused the claim: ${code}` };
  return { exit: ENROL_EXIT.failed, message: `the claim failed: ${code}` };
}

export async function runEnrol(argv: readonly string[], out = (line: string) => process.stdout.write(`${line}\n`), err = (line: string) => process.stderr.write(`${line}\n`)): Promise<number> {
  const options = parseEnrolArgs(argv, process.env);
  if (options === 'help') {
    out(ENROL_USAGE);
    return 0;
  }
  if (typeof options === 'string') {
    err(`canopy-daemon enrol: ${options}\n${ENROL_USAGE}`);
    return ENROL_EXIT.usage;
  }
  try {
    const token = options.token ?? readToken(options.tokenFile!);
    const config = readConfigFile(options.config);
    const api = config.device_api;
    const caPem = api.server_ca_path ? fs.readFileSync(api.server_ca_path) : undefined;
    const { key, created } = await deviceKey(api.private_key_path);
    if (created) out(`made a new P-256 key in ${api.private_key_path}`);
    const self = issue(options.identifier, null, { ca: false, days: 1, privateKey: key });
    const answer = await postClaim(api.url, { certPem: self.certPem, keyPem: self.keyPem, caPem }, { token, identifier: options.identifier });
    const outcome = outcomeOf(answer);
    if (outcome.exit === ENROL_EXIT.enrolled) {
      await writeFileAtomic(api.certificate_path, answer.body.certificate!, 0o644);
      out(`${outcome.message}; certificate written to ${api.certificate_path}`);
    } else {
      err(`canopy-daemon enrol: ${outcome.message}`);
    }
    return outcome.exit;
  } catch (error) {
    if (error instanceof ConfigError) {
      err(`canopy-daemon enrol: ${error.path === '--token-file' ? '' : `${options.config}: `}${error.message}`);
      return ENROL_EXIT.usage;
    }
    err(`canopy-daemon enrol: ${error instanceof Error ? error.message : String(error)}`);
    return ENROL_EXIT.failed;
  }
}
