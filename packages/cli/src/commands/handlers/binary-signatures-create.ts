/** `canopy binary-signatures create`: a given signature, or one made here with a local key pair. */
import { fillPath, signBinaryHash } from '@canopy/sdk';
import { UsageError } from '../../errors';
import type { ActionRun } from '../action';
import { str } from '../fields';
import { resolveKeyPair } from './signing-key-lookup';

export const BINARY_SIGNATURE_OPTIONS = [str('signing-key-pair', 'Name of a local key pair (canopy signing-keys create --generate NAME): signs the binary hash here.')];

export async function createBinarySignature(run: ActionRun): Promise<unknown> {
  const { body, options } = run;
  const pairName = options.signingKeyPair as string | undefined;
  if (!pairName) {
    if (!body.signature || !body.signing_key_prn) throw new UsageError('give --signature and --signing-key-prn, or --signing-key-pair NAME');
    return run.client().request('POST', '/binary_signatures', { body });
  }
  const client = run.client();
  const pair = await resolveKeyPair(client, run.store.dir, pairName);
  const { binary } = await client.request<{ binary: { hash: string } }>('GET', fillPath('/binaries/{prn}', { prn: body.binary_prn as string }));
  const signature = signBinaryHash(pair.privateKeyPem, binary.hash);
  return client.request('POST', '/binary_signatures', { body: { binary_prn: body.binary_prn, signing_key_prn: pair.signing_key_prn, signature } });
}
