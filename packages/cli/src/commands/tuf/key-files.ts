/** TUF key files: private keys stay on this machine (PKCS#8 PEM, mode 0600), never sent. */
import fs from 'node:fs';
import path from 'node:path';
import { generateTufKey, tufKeyFromPrivatePem, type TufKeyPair } from '@canopy/sdk/tuf';
import { UsageError } from '../../errors';

export function readKeyFile(file: string): TufKeyPair {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read key file ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  try {
    return tufKeyFromPrivatePem(text);
  } catch (error) {
    throw new UsageError(`${file}: not an Ed25519 private key (${(error as Error).message})`);
  }
}

/** The key in `file`, generated there first when the file does not exist. */
export function keyFileOrNew(file: string): TufKeyPair {
  if (fs.existsSync(file)) return readKeyFile(file);
  const pair = generateTufKey();
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, pair.privatePem, { mode: 0o600, flag: 'wx' });
  return pair;
}

export function readJsonFile(file: string): Record<string, unknown> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read JSON from ${file}: ${(error as Error).message}`);
  }
}

export function writeJsonFile(file: string, value: unknown) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Commander's collector for a repeatable option. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
