/** `canopy bundle-signatures create`: a given signature, or one made here with a local key pair. */
import { signBundleAndAttach } from '@canopy/sdk';
import { UsageError } from '../../errors';
import type { ActionRun } from '../action';
import { str } from '../fields';
import { resolveKeyPair } from './signing-key-lookup';

export const BUNDLE_SIGNATURE_OPTIONS = [str('signing-key-pair', "Name of a local key pair (canopy signing-keys create --generate NAME): signs the bundle's binaries here.")];

export async function createBundleSignature(run: ActionRun): Promise<unknown> {
  const { body, options } = run;
  const pairName = options.signingKeyPair as string | undefined;
  if (!pairName) {
    if (!body.signature || !body.signing_key_prn) throw new UsageError('give --signature and --signing-key-prn, or --signing-key-pair NAME');
    return run.client().request('POST', '/bundle_signatures', { body });
  }
  const client = run.client();
  const pair = await resolveKeyPair(client, run.store.dir, pairName);
  const target = (body.target as string | undefined) ?? null;
  return { bundle_signature: await signBundleAndAttach(client, body.bundle_prn as string, pair.signing_key_prn, pair.privateKeyPem, target) };
}
