/**
 * `canopy-daemon init DIR ...`: its options and their defaults. The defaults find a server started
 * with `npm start` on this machine the way the simulator does (simulator/main.ts): the ports and
 * data dir from CANOPY_ADMIN_PORT, CANOPY_DEVICE_PORT and CANOPY_DATA_DIR, the admin key from
 * CANOPY_API_KEY or the data dir's initial-api-key. Pure: reads no file.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

export const INIT_USAGE = `usage: canopy-daemon init DIR --cohort-prn PRN --signing-key-prn PRN [options]
  Writes a trial setup into DIR: a configuration (file installer, 10 s polls, a reboot command
  that only records in DIR/reboots.log), a device certificate and key admitted by just-in-time
  provisioning into the cohort, the device API's CA, and the signing key's public key.
  --cohort-prn PRN       the cohort (and so the product) the device joins
  --signing-key-prn PRN  the signing key whose signatures the device trusts
  --identifier ID        the device's identifier (default trial-HOSTNAME-XXXX)
  --target TRIPLET       the device's target (default this machine's, e.g. x86_64-unknown-linux-gnu)
  --admin-url URL        admin API (default $CANOPY_URL, else http://127.0.0.1:$CANOPY_ADMIN_PORT, 4000)
  --api-key KEY          admin API key (default $CANOPY_API_KEY, else --data-dir/initial-api-key)
  --device-url URL       device API (default https://127.0.0.1:$CANOPY_DEVICE_PORT, 4001)
  --server-ca FILE       the device API's CA (default --data-dir/device-api/ca.pem)
  --data-dir DIR         the server's data dir, for the defaults above (default $CANOPY_DATA_DIR, ./data)
  --poll SECONDS         seconds between update checks (default 10, the least allowed)
  --force                replace a setup already in DIR (its state and downloads too)
`;

export interface InitOptions {
  dir: string;
  cohortPrn: string;
  signingKeyPrn: string;
  identifier: string;
  target: string;
  adminUrl: string;
  /** Undefined: read from apiKeyFile. */
  apiKey?: string;
  apiKeyFile: string;
  deviceUrl: string;
  serverCa: string;
  poll: number;
  force: boolean;
}

const TARGETS: Record<string, string> = { x64: 'x86_64-unknown-linux-gnu', arm64: 'aarch64-unknown-linux-gnu', arm: 'armv7-unknown-linux-gnueabihf', riscv64: 'riscv64gc-unknown-linux-gnu' };

export function defaultIdentifier(hostname: string, suffix: string): string {
  const host = hostname.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'host';
  return `trial-${host}-${suffix}`;
}

/** The options, or a usage problem to print. */
export function parseInitArgs(argv: readonly string[], env: Record<string, string | undefined>, suffix: string): InitOptions | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'cohort-prn': { type: 'string' },
        'signing-key-prn': { type: 'string' },
        identifier: { type: 'string' },
        target: { type: 'string' },
        'admin-url': { type: 'string' },
        'api-key': { type: 'string' },
        'device-url': { type: 'string' },
        'server-ca': { type: 'string' },
        'data-dir': { type: 'string' },
        poll: { type: 'string', default: '10' },
        force: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return (error as Error).message;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return positionals.length === 0 ? 'init needs the directory to write the setup into' : `one directory only, got ${positionals.join(' ')}`;
  if (!values['cohort-prn']) return '--cohort-prn is required: the cohort the device joins';
  if (!values['signing-key-prn']) return '--signing-key-prn is required: the signing key the device trusts';
  const poll = Number(values.poll);
  if (!Number.isInteger(poll) || poll < 10) return '--poll must be a whole number of seconds, at least 10';
  const dataDir = values['data-dir'] ?? env.CANOPY_DATA_DIR ?? 'data';
  return {
    dir: path.resolve(positionals[0]),
    cohortPrn: values['cohort-prn'],
    signingKeyPrn: values['signing-key-prn'],
    identifier: values.identifier ?? defaultIdentifier(os.hostname(), suffix),
    target: values.target ?? TARGETS[process.arch] ?? `${process.arch}-unknown-linux`,
    adminUrl: values['admin-url'] ?? env.CANOPY_URL ?? `http://127.0.0.1:${env.CANOPY_ADMIN_PORT ?? '4000'}`,
    apiKey: values['api-key'] ?? env.CANOPY_API_KEY,
    apiKeyFile: path.resolve(dataDir, 'initial-api-key'),
    deviceUrl: values['device-url'] ?? `https://127.0.0.1:${env.CANOPY_DEVICE_PORT ?? '4001'}`,
    serverCa: path.resolve(values['server-ca'] ?? path.join(dataDir, 'device-api/ca.pem')),
    poll,
    force: values.force,
  };
}
