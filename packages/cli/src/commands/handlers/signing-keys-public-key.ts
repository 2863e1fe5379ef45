/**
 * `canopy signing-keys public-key PRN`: the registered key as a PEM public key (SPKI), the file a
 * device lists in trusted_signing_keys. Printed as it is, not as JSON, so `> release.pub.pem` works.
 */
import { signingKeyPublicKey } from '@canopy/sdk';
import type { ActionRun } from '../action';

export async function printSigningKeyPem(run: ActionRun): Promise<undefined> {
  const answer = await run.client().request<{ signing_key: { value: string } }>('GET', `/signing_keys/${encodeURIComponent(run.args.prn)}`);
  run.io.stdout.write(signingKeyPublicKey(answer.signing_key.value).export({ type: 'spki', format: 'pem' }).toString());
  return undefined;
}
