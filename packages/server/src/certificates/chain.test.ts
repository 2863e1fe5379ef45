import { beforeAll, describe, expect, it } from 'vitest';
import {
  makeExpiredCertificate,
  makeIntermediateCa,
  makeLeafCertificate,
  makeRootCa,
  makeSelfSignedLeaf,
  sharedRootCa,
  type KeyType,
  type TestCertificate,
} from '../../test/support/certificates';
import { issueCertificate } from './issue';
import { verifyClientCertificateChain, type CaLookupKey, type RegisteredCa } from './chain';
import { summarizeCertificate } from './pem';

interface TestCa extends RegisteredCa {
  prn: string;
}

/** Stands in for the database: registered CAs found by subject key identifier or subject name. */
class CaRegistry {
  readonly cas: TestCa[] = [];
  readonly lookups: CaLookupKey[] = [];

  register(certificate: TestCertificate, prn = `prn:ca:${this.cas.length}`): TestCa {
    const ca = { prn, certificate: certificate.cert };
    this.cas.push(ca);
    return ca;
  }

  find = async (key: CaLookupKey): Promise<TestCa[]> => {
    this.lookups.push(key);
    return this.cas.filter((ca) => {
      const summary = summarizeCertificate(ca.certificate);
      return 'authorityKeyIdentifier' in key
        ? summary.subjectKeyIdentifier === key.authorityKeyIdentifier
        : summary.subjectName === key.issuerName;
    });
  };
}

function verify(registry: CaRegistry, leaf: TestCertificate | null, intermediates: TestCertificate[] = [], now?: Date) {
  return verifyClientCertificateChain({
    leaf: leaf?.cert,
    intermediates: intermediates.map((certificate) => certificate.cert),
    findCaCandidates: registry.find,
    now,
  });
}

describe('verifyClientCertificateChain', () => {
  let root: TestCertificate;
  let intermediate: TestCertificate;
  let device: TestCertificate;
  beforeAll(async () => {
    root = await sharedRootCa();
    intermediate = await makeIntermediateCa(root);
    device = await makeLeafCertificate(intermediate, 'device-1');
  });

  it('accepts root -> intermediate -> leaf with the root registered', async () => {
    const registry = new CaRegistry();
    const ca = registry.register(root);
    const result = await verify(registry, device, [intermediate]);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.ca).toBe(ca);
      expect(result.leafSummary.commonName).toBe('device-1');
      expect(result.intermediates.map((certificate) => certificate.fingerprint256)).toEqual([intermediate.cert.fingerprint256]);
    }
    // Found by key identifier, not by name.
    expect(registry.lookups[0]).toEqual({ authorityKeyIdentifier: summarizeCertificate(intermediate.cert).subjectKeyIdentifier });
  });

  it('accepts a leaf issued directly by a registered CA, and a registered intermediate the client resends', async () => {
    const registry = new CaRegistry();
    const direct = await makeLeafCertificate(root, 'device-direct');
    registry.register(root);
    expect((await verify(registry, direct)).ok).toBe(true);

    const intermediateOnly = new CaRegistry();
    const ca = intermediateOnly.register(intermediate);
    const result = await verify(intermediateOnly, device, [device, intermediate, root]);
    expect(result.ok && result.ca).toBe(ca);
  });

  it('accepts a CA registered after the first failed attempt (no static trust store)', async () => {
    const registry = new CaRegistry();
    expect(await verify(registry, device, [intermediate])).toMatchObject({ ok: false, reason: 'unknown_ca' });
    registry.register(root);
    expect((await verify(registry, device, [intermediate])).ok).toBe(true);
  });

  it('rejects a chain to an unregistered CA', async () => {
    const registry = new CaRegistry();
    registry.register(await makeRootCa());
    expect(await verify(registry, device, [intermediate, root])).toMatchObject({ ok: false, reason: 'unknown_ca' });
    // The intermediate is needed to reach the registered root.
    const rootOnly = new CaRegistry();
    rootOnly.register(root);
    expect(await verify(rootOnly, device)).toMatchObject({ ok: false, reason: 'unknown_ca', position: 'leaf' });
  });

  it('rejects a missing certificate', async () => {
    expect(await verify(new CaRegistry(), null)).toEqual({ ok: false, reason: 'no_certificate' });
  });

  it('rejects an expired or not yet valid leaf', async () => {
    const registry = new CaRegistry();
    registry.register(root);
    const expired = await makeExpiredCertificate(root, 'device-old');
    expect(await verify(registry, expired)).toMatchObject({ ok: false, reason: 'expired', position: 'leaf' });
    const future = await makeLeafCertificate(root, 'device-future', { notBefore: new Date(Date.now() + 86_400_000) });
    expect(await verify(registry, future)).toMatchObject({ ok: false, reason: 'not_yet_valid', position: 'leaf' });
  });

  it('rejects an expired intermediate and an expired registered CA, naming the CA', async () => {
    const registry = new CaRegistry();
    registry.register(root);
    const expiredIntermediate = await makeExpiredCertificate(root, 'Old Intermediate', { isCa: true });
    const leaf = await makeLeafCertificate(expiredIntermediate, 'device-2', { notBefore: new Date(Date.now() - 60_000) });
    expect(await verify(registry, leaf, [expiredIntermediate])).toMatchObject({ ok: false, reason: 'expired', position: 'intermediate' });

    const expiredRoot = await makeRootCa({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    const orphan = await makeLeafCertificate(expiredRoot, 'device-3');
    const withExpired = new CaRegistry();
    const ca = withExpired.register(expiredRoot);
    const result = await verify(withExpired, orphan);
    expect(result).toMatchObject({ ok: false, reason: 'expired', position: 'ca' });
    expect(!result.ok && result.ca).toBe(ca);
  });

  it('anchors on the renewed certificate of a CA that kept its key', async () => {
    const original = await makeRootCa({ commonName: 'Renewed CA', notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    const renewed = await issueCertificate({ subject: 'Renewed CA', isCa: true, keys: original.keys });
    const leaf = await makeLeafCertificate(renewed, 'device-renewed');
    const registry = new CaRegistry();
    registry.register(original);
    const current = registry.register(renewed);
    const result = await verify(registry, leaf);
    expect(result.ok && result.ca).toBe(current);
  });

  it('rejects a self-signed leaf, even when it is registered', async () => {
    const selfSigned = await makeSelfSignedLeaf('device-self');
    const registry = new CaRegistry();
    registry.register(selfSigned);
    const result = await verify(registry, selfSigned);
    expect(result).toMatchObject({ ok: false, reason: 'self_signed', position: 'leaf' });
    expect(!result.ok && result.leafSummary?.commonName).toBe('device-self');
  });

  it('rejects a certificate whose signature does not verify', async () => {
    const registry = new CaRegistry();
    registry.register(root);
    const genuine = await makeLeafCertificate(root, 'device-tampered');
    // Flip the last signature byte: still parses, still names the registered CA, no longer verifies.
    const tampered = Buffer.from(genuine.cert.raw);
    tampered[tampered.length - 1] ^= 0x01;
    const result = await verifyClientCertificateChain({ leaf: tampered, findCaCandidates: registry.find });
    expect(result).toMatchObject({ ok: false, reason: 'bad_signature', position: 'leaf' });
  });

  it('treats a same-named CA with another key as unknown, not as the issuer', async () => {
    const registry = new CaRegistry();
    const real = await makeRootCa({ commonName: 'Acme Devices CA' });
    const impostor = await makeRootCa({ commonName: 'Acme Devices CA' });
    registry.register(real);
    const forged = await makeLeafCertificate(impostor, 'device-forged');
    expect(await verify(registry, forged)).toMatchObject({ ok: false, reason: 'unknown_ca' });
    // A presented "intermediate" whose name matches but whose key did not sign.
    const fakeIntermediate = await makeIntermediateCa(root, { commonName: 'Acme Intermediate' });
    const realIntermediate = await makeIntermediateCa(impostor, { commonName: 'Acme Intermediate' });
    const leaf = await makeLeafCertificate(realIntermediate, 'device-4');
    const rootRegistry = new CaRegistry();
    rootRegistry.register(root);
    expect(await verify(rootRegistry, leaf, [fakeIntermediate])).toMatchObject({ ok: false, reason: 'unknown_ca' });
  });

  it('rejects an issuer that is not a CA', async () => {
    const registry = new CaRegistry();
    registry.register(root);
    const notCa = await makeLeafCertificate(root, 'just-a-device');
    const leaf = await makeLeafCertificate(notCa, 'device-5');
    expect(await verify(registry, leaf, [notCa])).toMatchObject({ ok: false, reason: 'issuer_not_a_ca', position: 'intermediate' });
    const direct = new CaRegistry();
    direct.register(notCa);
    expect(await verify(direct, leaf)).toMatchObject({ ok: false, reason: 'issuer_not_a_ca', position: 'ca' });
  });

  it('bounds the number of intermediates walked', async () => {
    const registry = new CaRegistry();
    registry.register(root);
    const second = await makeIntermediateCa(intermediate);
    const leaf = await makeLeafCertificate(second, 'device-deep');
    expect((await verify(registry, leaf, [second, intermediate])).ok).toBe(true);
    const result = await verifyClientCertificateChain({
      leaf: leaf.cert,
      intermediates: [second.cert, intermediate.cert],
      findCaCandidates: registry.find,
      maxIntermediates: 1,
    });
    expect(result).toMatchObject({ ok: false, reason: 'chain_too_long' });
  });

  it('accepts DER buffers and rejects garbage as malformed', async () => {
    const registry = new CaRegistry();
    registry.register(root);
    const result = await verifyClientCertificateChain({ leaf: device.cert.raw, intermediates: [intermediate.cert.raw], findCaCandidates: registry.find });
    expect(result.ok).toBe(true);
    const garbage = await verifyClientCertificateChain({ leaf: Buffer.from('nope'), findCaCandidates: registry.find });
    expect(garbage).toEqual({ ok: false, reason: 'malformed', position: 'leaf' });
  });

  const keyTypes: KeyType[] = ['ed25519', 'rsa-2048'];
  it.each(keyTypes)('accepts a %s root -> intermediate -> leaf chain', async (keyType) => {
    const typedRoot = await makeRootCa({ keyType });
    const typedIntermediate = await makeIntermediateCa(typedRoot, { keyType });
    const leaf = await makeLeafCertificate(typedIntermediate, `device-${keyType}`, { keyType });
    const registry = new CaRegistry();
    registry.register(typedRoot);
    const result = await verify(registry, leaf, [typedIntermediate]);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.leafSummary.keyAlgorithm).toBe(keyType);
  });

  it('accepts mixed key types along the chain', async () => {
    const edRoot = await makeRootCa({ keyType: 'ed25519' });
    const ecIntermediate = await makeIntermediateCa(edRoot);
    const rsaLeaf = await makeLeafCertificate(ecIntermediate, 'device-mixed', { keyType: 'rsa-2048' });
    const registry = new CaRegistry();
    registry.register(edRoot);
    expect((await verify(registry, rsaLeaf, [ecIntermediate])).ok).toBe(true);
  });
});
