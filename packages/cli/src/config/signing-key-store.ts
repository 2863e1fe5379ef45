/**
 * Local signing key pairs, by name: `<config dir>/signing-keys/<name>.pem` (private, 0600) and
 * `<name>.json` (public value, keyid and, once registered, the signing key's prn).
 */
import fs from 'node:fs';
import path from 'node:path';
import { keyPairFromPrivatePem, type Ed25519KeyPair } from '@canopy/sdk';
import { signingKeysDir } from './paths';
import { UsageError } from '../errors';

export interface StoredKeyPair extends Ed25519KeyPair {
  name: string;
  signing_key_prn?: string;
}

const NAME = /^[A-Za-z0-9._-]{1,128}$/;

function files(configDir: string, name: string) {
  if (!NAME.test(name)) throw new UsageError(`key pair name "${name}" may use letters, digits, '.', '_' and '-' only`);
  const dir = signingKeysDir(configDir);
  return { dir, privateKey: path.join(dir, `${name}.pem`), metadata: path.join(dir, `${name}.json`) };
}

export function saveKeyPair(configDir: string, name: string, pair: Ed25519KeyPair, signingKeyPrn?: string): string {
  const f = files(configDir, name);
  if (fs.existsSync(f.privateKey)) throw new UsageError(`a key pair named "${name}" already exists at ${f.privateKey}`);
  fs.mkdirSync(f.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(f.privateKey, pair.privateKeyPem, { mode: 0o600 });
  fs.chmodSync(f.privateKey, 0o600);
  recordPrn(configDir, name, pair, signingKeyPrn);
  return f.privateKey;
}

export function recordPrn(configDir: string, name: string, pair: Ed25519KeyPair, signingKeyPrn?: string): void {
  const f = files(configDir, name);
  const metadata = { name, public_key_value: pair.publicKeyValue, keyid: pair.keyid, signing_key_prn: signingKeyPrn ?? null };
  fs.writeFileSync(f.metadata, `${JSON.stringify(metadata, null, 2)}\n`, { mode: 0o644 });
}

export function loadKeyPair(configDir: string, name: string): StoredKeyPair {
  const f = files(configDir, name);
  if (!fs.existsSync(f.privateKey)) throw new UsageError(`no local key pair "${name}" (looked for ${f.privateKey}); make one with: canopy signing-keys create --generate ${name}`);
  const pair = keyPairFromPrivatePem(fs.readFileSync(f.privateKey, 'utf8'));
  const metadata = fs.existsSync(f.metadata) ? (JSON.parse(fs.readFileSync(f.metadata, 'utf8')) as { signing_key_prn?: string | null }) : {};
  return { ...pair, name, signing_key_prn: metadata.signing_key_prn ?? undefined };
}
