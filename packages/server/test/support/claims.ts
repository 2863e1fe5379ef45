/**
 * A pending device reclaim made the way devices make one: a claim token, a device enrolled with a
 * fresh key over the device API, then the same identifier claimed with another key.
 */
import { randomUUID } from 'node:crypto';
import { issueCertificate } from '../../src/certificates/issue';
import { deviceApi } from './device-json-client';
import type { DeviceTarget } from './device-client';
import type { Api } from './server';

export async function freshClaimKey(name = 'claiming-device') {
  const self = await issueCertificate({ subject: name, clientAuth: true });
  return { certPem: self.certPem, keyPem: self.keyPem };
}

export async function pendingReclaim(target: DeviceTarget, api: Api, productPrn: string): Promise<string> {
  const token = await api('POST', '/claim_tokens', { max_uses: 5, expires_at: new Date(Date.now() + 86_400_000).toISOString(), product_prn: productPrn });
  if (token.status !== 201) throw new Error(`claim token: ${JSON.stringify(token.body)}`);
  const identifier = `reclaim-${randomUUID().slice(0, 8)}`;
  const body = { token: token.body.claim_token.secret, identifier };
  const first = await deviceApi(target, await freshClaimKey())('POST', '/device/claim', body);
  if (first.status !== 201) throw new Error(`claim: ${JSON.stringify(first.body)}`);
  const second = await deviceApi(target, await freshClaimKey())('POST', '/device/claim', body);
  if (second.status !== 202) throw new Error(`reclaim: ${JSON.stringify(second.body)}`);
  return second.body.device_reclaim_prn;
}
