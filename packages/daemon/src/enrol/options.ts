/**
 * `canopy-daemon enrol`'s options and exit codes. The token is never taken on the command line,
 * where any user of the machine could read it (ps): from a file or CANOPY_CLAIM_TOKEN. Pure.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_CONFIG_PATH } from '../config/load.ts';

export const ENROL_USAGE = `usage: canopy-daemon enrol [--token-file FILE] [--identifier ID] [--config FILE]
  Enrols this device with a claim token: keeps a P-256 key at device_api.private_key_path (made
  on the first run), claims its identifier over the device API, and writes the certificate it is
  given to device_api.certificate_path. Exit 0 enrolled; 75 waiting (an admin must approve this
  new key for a known identifier, or too many refused claims: run again later, same key);
  77 the token was refused (wrong, revoked, expired, used up); 64 usage or configuration.
  --token-file FILE  file holding the claim token (default: the CANOPY_CLAIM_TOKEN environment variable)
  --identifier ID    the device's identifier (default: the host name, ${os.hostname()})
  --config FILE      configuration file (default $CANOPY_DAEMON_CONFIG, else ${DEFAULT_CONFIG_PATH})
`;

export const ENROL_EXIT = { enrolled: 0, failed: 1, usage: 64, pending: 75, refused: 77 } as const;

export interface EnrolOptions {
  config: string;
  identifier: string;
  /** The token, from the environment; absent when `tokenFile` names it. */
  token?: string;
  tokenFile?: string;
}

/** 'help', a problem in words, or the options. */
export function parseEnrolArgs(argv: readonly string[], env: Record<string, string | undefined>): EnrolOptions | 'help' | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { 'token-file': { type: 'string' }, identifier: { type: 'string' }, config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help) return 'help';
  const tokenFile = values['token-file'];
  const token = tokenFile ? undefined : env.CANOPY_CLAIM_TOKEN?.trim();
  if (!tokenFile && !token) return 'needs the claim token: --token-file FILE or CANOPY_CLAIM_TOKEN';
  const identifier = values.identifier ?? os.hostname();
  if (!/^[\x21-\x7e]{1,128}$/.test(identifier)) return `--identifier must be 1 to 128 printable characters without spaces, not ${JSON.stringify(identifier)}`;
  return { config: values.config ?? env.CANOPY_DAEMON_CONFIG ?? DEFAULT_CONFIG_PATH, identifier, token, tokenFile };
}
