/** Finds the signing key prn of a local key pair: recorded at registration, else by its public value on the server. */
import { listAll } from '@canopy/sdk';
import type { CanopyClient } from '@canopy/sdk';
import { loadKeyPair, recordPrn, type StoredKeyPair } from '../../config/signing-key-store';
import { UsageError } from '../../errors';

export async function resolveKeyPair(client: CanopyClient, configDir: string, name: string): Promise<StoredKeyPair & { signing_key_prn: string }> {
  const pair = loadKeyPair(configDir, name);
  if (pair.signing_key_prn) return pair as StoredKeyPair & { signing_key_prn: string };
  const keys = await listAll<{ prn: string; value: string }>(client, '/signing_keys', { itemsKey: 'signing_keys', query: { limit: 100 } });
  const match = keys.find((k) => k.value === pair.publicKeyValue || k.value?.replace(/\s/g, '') === pair.publicKeyPem.replace(/\s/g, ''));
  if (!match) throw new UsageError(`key pair "${name}" is not registered on this server; run: canopy signing-keys create --generate <new name> or register its public key`);
  recordPrn(configDir, name, pair, match.prn);
  return { ...pair, signing_key_prn: match.prn };
}
