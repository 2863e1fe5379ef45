/** `canopy signing-keys create`: register a public key given as text, a file, or a freshly generated local key pair. */
import fs from 'node:fs';
import { generateSigningKeyPair, keyPairFromPrivatePem } from '@canopy/sdk';
import { recordPrn, saveKeyPair } from '../../config/signing-key-store';
import { UsageError } from '../../errors';
import type { ActionRun } from '../action';
import { str } from '../fields';

export const SIGNING_KEY_OPTIONS = [
  str('generate', 'Generate an Ed25519 key pair named NAME locally (private key saved 0600 under the config dir) and register its public key. Also the default --name.'),
  str('value-path', 'File holding the public key (PEM SPKI, or a PEM private key whose public half is taken).'),
];

export async function createSigningKey(run: ActionRun): Promise<unknown> {
  const { options, body } = run;
  const generate = options.generate as string | undefined;
  const valuePath = options.valuePath as string | undefined;
  const sources = [generate, valuePath, body.value].filter((v) => v !== undefined);
  if (sources.length !== 1) throw new UsageError('give exactly one of --value, --value-path or --generate NAME');

  if (generate) {
    const pair = generateSigningKeyPair();
    const keyName = (body.name as string | undefined) ?? generate;
    // Save before registering: a key registered but lost locally would be useless.
    const file = saveKeyPair(run.store.dir, generate, pair);
    const answer = await run.client().request<{ signing_key: { prn: string } }>('POST', '/signing_keys', { body: { name: keyName, value: pair.publicKeyValue } });
    recordPrn(run.store.dir, generate, pair, answer.signing_key.prn);
    run.io.stderr.write(`private key saved to ${file}\n`);
    return answer;
  }
  let value = body.value as string | undefined;
  if (valuePath) {
    let text: string;
    try {
      text = fs.readFileSync(valuePath, 'utf8');
    } catch (error) {
      throw new UsageError(`--value-path: cannot read ${valuePath}: ${(error as NodeJS.ErrnoException).code}`);
    }
    value = text.includes('PRIVATE KEY') ? keyPairFromPrivatePem(text).publicKeyValue : text.trim();
  }
  if (!body.name) throw new UsageError('--name is required unless --generate NAME is given');
  return run.client().request('POST', '/signing_keys', { body: { ...body, value } });
}
