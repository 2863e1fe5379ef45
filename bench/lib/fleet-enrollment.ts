/**
 * The device API benchmarks' fleet on a running Canopy: the device CA registered with its proof
 * of possession, a product, and the devices with their certificates seeded straight into
 * PostgreSQL (creating 10,000 through the API would take minutes for nothing measured).
 */
import pg from 'pg';
import type { IssuedCertificate } from '../../packages/server/src/certificates/issue';
import { makeVerificationCertificate, type BenchDevice } from './device-certificates';

export async function enrollFleet(canopy: { url: string; apiKey: string }, databaseUrl: string, deviceCa: IssuedCertificate, devices: BenchDevice[]): Promise<void> {
  const code = (await admin(canopy.url, canopy.apiKey, 'POST', '/ca_certificates/verification_codes')).verification_code;
  const verification = await makeVerificationCertificate(deviceCa, code);
  const b64 = (pem: string) => Buffer.from(pem).toString('base64');
  await admin(canopy.url, canopy.apiKey, 'POST', '/ca_certificates', { certificate: b64(deviceCa.certPem), verification_certificate: b64(verification.certPem) });
  const product = await admin(canopy.url, canopy.apiKey, 'POST', '/products', { name: 'bench' });
  await seed(databaseUrl, product.product.prn, devices);
}

async function seed(databaseUrl: string, productPrn: string, devices: BenchDevice[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const productId = productPrn.split(':')[4];
    const { rows: [product] } = await client.query('select organization_id from products where id = $1', [productId]);
    const ids = await client.query(
      `insert into devices (id, organization_id, product_id, identifier)
       select gen_random_uuid(), $1, $2, unnest($3::text[]) returning id, identifier`,
      [product.organization_id, productId, devices.map((d) => d.identifier)],
    );
    const idOf = new Map(ids.rows.map((row) => [row.identifier, row.id]));
    await client.query(
      `insert into device_certificates (id, organization_id, device_id, certificate, serial, fingerprint, authority_key_identifier, not_before, not_after)
       select gen_random_uuid(), $1, d, c, s, f, a, nb::timestamptz, na::timestamptz
       from unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) as t(d, c, s, f, a, nb, na)`,
      [
        product.organization_id,
        devices.map((d) => idOf.get(d.identifier)),
        devices.map((d) => d.certPem),
        devices.map((d) => d.serial),
        devices.map((d) => d.fingerprint),
        devices.map((d) => d.authorityKeyIdentifier),
        devices.map((d) => d.notBefore),
        devices.map((d) => d.notAfter),
      ],
    );
    // Vacuumed too, as in a fleet's steady state: not the autovacuum of a fresh insert during the timed run.
    await client.query('vacuum analyze devices');
    await client.query('vacuum analyze device_certificates');
  } finally {
    await client.end();
  }
}

async function admin(url: string, apiKey: string, method: string, urlPath: string, body?: unknown) {
  const res = await fetch(`${url}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

