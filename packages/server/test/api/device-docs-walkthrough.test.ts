/**
 * The CA-certificate guide followed as a user would, with the `openssl` and `curl` command-line
 * tools only: make a CA, get a verification code, sign the verification certificate, register
 * the CA (with just-in-time provisioning), issue a device certificate, call `GET /update`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64OfFile, makeOpensslWorkdir, opensslCreateCa, opensslCreateDeviceCertificate, opensslCreateVerificationCertificate } from '../support/openssl';
import { startTestServer, type TestServer } from '../support/server';

const run = promisify(execFile);

let t: TestServer;
let work: { dir: string; remove: () => Promise<void> };
beforeAll(async () => {
  t = await startTestServer();
  work = await makeOpensslWorkdir();
});
afterAll(async () => {
  await t?.close();
  await work?.remove();
});

/** `curl -s` against the admin API with the key, JSON in and out. */
async function adminCurl(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  const args = ['-s', '-w', '\n%{http_code}', '-X', method, '-H', `Authorization: Bearer ${t.apiKey}`, `${t.url}${urlPath}`];
  if (body !== undefined) args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(body));
  return parseCurl((await run('curl', args)).stdout);
}

function parseCurl(stdout: string): { status: number; body: any } {
  const split = stdout.lastIndexOf('\n');
  const text = stdout.slice(0, split);
  return { status: Number(stdout.slice(split + 1)), body: text ? JSON.parse(text) : null };
}

describe('the CA certificate guide, with openssl and curl', () => {
  it('registers a CA, provisions a device from its certificate and checks for an update', async () => {
    const { dir } = work;
    const product = await adminCurl('POST', '/products', { name: 'docs-gateway' });
    expect(product.status).toBe(201);

    // 1. Make a CA.
    const ca = await opensslCreateCa(dir);
    // 2. Get a verification code.
    const code = await adminCurl('POST', '/ca_certificates/verification_codes');
    expect(code.status).toBe(201);
    // 3. Sign a verification certificate whose CN is the code.
    const verification = await opensslCreateVerificationCertificate(dir, ca, code.body.verification_code);
    // 4. Register the CA, with just-in-time provisioning into the product.
    const registered = await adminCurl('POST', '/ca_certificates', {
      certificate: await base64OfFile(ca.certPath),
      verification_certificate: await base64OfFile(verification.certPath),
      description: 'Docs example CA',
      jitp: { description: 'Provisioned on first contact', tags: ['docs'], product_name: 'docs-gateway' },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    // 5. Issue a device certificate (CN = device identifier).
    const device = await opensslCreateDeviceCertificate(dir, ca, 'docs-device-0001');
    // 6. Call the device API with it, trusting the server's CA.
    const serverCa = path.join(dir, 'canopy-device-api-ca.pem');
    fs.writeFileSync(serverCa, t.deviceServerCaPem);
    const deviceCurl = async (urlPath: string) =>
      parseCurl((await run('curl', ['-s', '-w', '\n%{http_code}', '--cert', device.certPath, '--key', device.keyPath, '--cacert', serverCa, `${t.deviceUrl}${urlPath}`])).stdout);

    const update = await deviceCurl('/update');
    expect(update).toEqual({ status: 200, body: { status: 'no_update' } });
    const me = await deviceCurl('/device/me');
    expect(me.body.data).toMatchObject({ identifier: 'docs-device-0001', tags: ['docs'], product_prn: product.body.product.prn });

    // Without a client certificate: a 401 that says why.
    const anonymous = parseCurl((await run('curl', ['-s', '-w', '\n%{http_code}', '--cacert', serverCa, `${t.deviceUrl}/update`])).stdout);
    expect(anonymous).toEqual({ status: 401, body: { errors: [{ code: 'unauthenticated', context: { reason: 'no_certificate' } }] } });
  });
});
