/**
 * CA certificates and device certificates through the CLI against a real server, with every
 * certificate made by `canopy x509`: the CA is registered by proving its key with a verification
 * certificate whose CN is a code from `ca-certificates verification-code`.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetFixtures, prns } from './support/fixtures';
import { canopy, canopyOk } from './support/run-canopy';
import { temporaryConfigDir, useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);

/** A CA made by `canopy x509 create-ca` in a directory of its own: the flags later x509 commands sign with. */
async function localCa(algorithm: string) {
  const dir = temporaryConfigDir();
  await ok(['x509', 'create-ca', '--common-name', `Fleet CA ${algorithm}`, '--algorithm', algorithm, '--out-dir', dir]);
  return { dir, certificate: path.join(dir, 'ca.pem'), signWith: ['--ca-certificate', path.join(dir, 'ca.pem'), '--ca-key', path.join(dir, 'ca-key.pem'), '--out-dir', dir] };
}

/** Registers `ca` with the server, proving its key with a fresh verification code. */
async function registerLocalCa(ca: Awaited<ReturnType<typeof localCa>>) {
  const code = (await ok(['ca-certificates', 'verification-code'])).verification_code as string;
  await ok(['x509', 'create-verification-certificate', ...ca.signWith, '--verification-code', code]);
  return (await ok(['ca-certificates', 'create', '--certificate', ca.certificate, '--verification-certificate', path.join(ca.dir, 'verification.pem')])).ca_certificate;
}

/** The serial as the API shows it: decimal. */
const decimalSerial = (pemFile: string) => BigInt(`0x${new X509Certificate(fs.readFileSync(pemFile)).serialNumber}`).toString();

describe.each(['ecdsa-p256', 'ed25519'])('ca-certificates with an %s CA', (algorithm) => {
  it('verification-code, create (proving the key), get, list, update, delete', async () => {
    const ca = await localCa(algorithm);
    const code = (await ok(['ca-certificates', 'verification-code'])).verification_code as string;
    await ok(['x509', 'create-verification-certificate', ...ca.signWith, '--verification-code', code]);
    const verification = path.join(ca.dir, 'verification.pem');

    const created = (await ok(['ca-certificates', 'create', '--certificate', ca.certificate, '--verification-certificate', verification, '--description', 'fleet CA'])).ca_certificate;
    expect(created).toMatchObject({ description: 'fleet CA', jitp: null, serial: decimalSerial(ca.certificate) });
    expect((await ok(['ca-certificates', 'get', created.prn])).ca_certificate).toEqual(created);
    expect(prns((await ok(['ca-certificates', 'list', '--all'])).ca_certificates)).toContain(created.prn);

    // The code is spent: another CA proving its key with the same code is refused, naming the field.
    const other = await localCa(algorithm);
    await ok(['x509', 'create-verification-certificate', ...other.signWith, '--verification-code', code]);
    const reused = await canopy(['ca-certificates', 'create', '--certificate', other.certificate, '--verification-certificate', path.join(other.dir, 'verification.pem')], env);
    expect(reused.code).toBe(1);
    expect(reused.stderr).toMatch(/answered 422/);
    expect(reused.stderr).toContain('verification_code_mismatch');

    const product = (await ok(['products', 'create', '--name', `jitp-${algorithm}`])).product;
    const jitp = { description: 'provisioned', tags: ['field'], product_name: product.name };
    const updated = (await ok(['ca-certificates', 'update', created.prn, '--jitp', JSON.stringify(jitp), '--description', 'fleet CA, provisioning'])).ca_certificate;
    expect(updated).toMatchObject({ description: 'fleet CA, provisioning', jitp: { ...jitp, cohort_prn: null, target: null } });
    expect((await ok(['ca-certificates', 'update', created.prn, '--jitp', 'null'])).ca_certificate.jitp).toBeNull();

    const deleted = await canopy(['ca-certificates', 'delete', created.prn], env);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe('');
    expect((await canopy(['ca-certificates', 'get', created.prn], env)).code).toBe(1);
  });
});

describe('device-certificates', () => {
  it('create from an x509 device certificate, get, list (all and --device-prn), delete', async () => {
    const { device, product } = await fleetFixtures(ok, 'certs');
    const other = (await ok(['devices', 'create', '--identifier', 'dev-certs-other', '--product-prn', product.prn])).device;
    const ca = await localCa('ecdsa-p256');
    // A device certificate is registered only under a CA its organization registered.
    await registerLocalCa(ca);
    await ok(['x509', 'create-device-certificate', ...ca.signWith, '--common-name', device.identifier, '--algorithm', 'ed25519']);
    await ok(['x509', 'create-device-certificate', ...ca.signWith, '--common-name', other.identifier]);
    const pem = path.join(ca.dir, `${device.identifier}.pem`);

    const created = (await ok(['device-certificates', 'create', '--device-prn', device.prn, '--certificate', pem])).device_certificate;
    const x509 = new X509Certificate(fs.readFileSync(pem));
    expect(created).toMatchObject({ device_prn: device.prn, serial: decimalSerial(pem), fingerprint: x509.fingerprint256.replace(/:/g, '') });
    const otherCertificate = (await ok(['device-certificates', 'create', '--device-prn', other.prn, '--certificate', path.join(ca.dir, `${other.identifier}.pem`)])).device_certificate;

    expect((await ok(['device-certificates', 'get', created.prn])).device_certificate).toEqual(created);
    expect(prns((await ok(['device-certificates', 'list', '--all'])).device_certificates)).toEqual(expect.arrayContaining([created.prn, otherCertificate.prn]));
    expect(prns((await ok(['device-certificates', 'list', '--device-prn', device.prn])).device_certificates)).toEqual([created.prn]);

    // The same certificate cannot be registered twice.
    const again = await canopy(['device-certificates', 'create', '--device-prn', other.prn, '--certificate', pem], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/answered 422/);

    expect((await canopy(['device-certificates', 'delete', created.prn], env)).code).toBe(0);
    expect((await canopy(['device-certificates', 'get', created.prn], env)).code).toBe(1);
    expect((await ok(['device-certificates', 'list', '--device-prn', device.prn])).device_certificates).toEqual([]);
  });

  it('a missing certificate file is a usage error, before any request', async () => {
    const run = await canopy(['device-certificates', 'create', '--device-prn', 'prn:1:o:device:d', '--certificate', '/nonexistent/device.pem'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--certificate: cannot read /nonexistent/device.pem');
  });
});
