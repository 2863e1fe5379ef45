/** Signing a verified binary with a local Ed25519 key and attaching the signature. */
import type { CanopyClient } from './client';
import type { Binary } from './binary-upload';
import { signBinaryHash } from './signing';

export interface BinarySignature {
  prn: string;
  binary_prn: string;
  signing_key_prn: string;
  signature: string;
  [field: string]: unknown;
}

/** Attaches a signature unless the binary already carries one from this signing key. */
export async function signAndAttach(client: CanopyClient, binary: Binary, signingKeyPrn: string, privateKeyPem: string): Promise<BinarySignature | null> {
  if (binary.signatures?.some((s) => s.signing_key_prn === signingKeyPrn)) return null;
  const signature = signBinaryHash(privateKeyPem, binary.hash);
  const answer = await client.request<{ binary_signature: BinarySignature }>('POST', '/binary_signatures', {
    body: { binary_prn: binary.prn, signing_key_prn: signingKeyPrn, signature },
  });
  return answer.binary_signature;
}
