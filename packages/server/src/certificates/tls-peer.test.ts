// Over a real TLS connection: the chain a client presents reaches verifyClientCertificateChain.
import type { AddressInfo } from 'node:net';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import {
  makeIntermediateCa,
  makeLeafCertificate,
  makeRootCa,
  makeServerCertificate,
  type TestCertificate,
} from '../../test/support/certificates';
import { verifyClientCertificateChain, type ChainResult, type RegisteredCa } from './chain';
import { summarizeCertificate } from './pem';
import { peerCertificates } from './tls-peer';

describe('peerCertificates', () => {
  it('passes the leaf and the intermediates a client sends to the chain check, however often asked', async () => {
    const serverCa = await makeRootCa();
    const server = await makeServerCertificate(serverCa);
    const deviceRoot = await makeRootCa();
    const intermediate = await makeIntermediateCa(deviceRoot);
    const device = await makeLeafCertificate(intermediate, 'device-tls');
    const registered: RegisteredCa = { certificate: deviceRoot.cert };

    const check = (socket: TLSSocket) => {
      // Node hands the sent chain out once per connection: asking again must not lose it.
      peerCertificates(socket);
      const { leaf, intermediates } = peerCertificates(socket);
      const rootKeyId = summarizeCertificate(deviceRoot.cert).subjectKeyIdentifier;
      return verifyClientCertificateChain({
        leaf,
        intermediates,
        findCaCandidates: async (key) => ('authorityKeyIdentifier' in key && key.authorityKeyIdentifier === rootKeyId ? [registered] : []),
      });
    };

    const withChain = await handshake(server, serverCa, check, { cert: device.certPem + intermediate.certPem, key: device.keyPem });
    expect(withChain).toMatchObject({ ok: true });
    const leafOnly = await handshake(server, serverCa, check, { cert: device.certPem, key: device.keyPem });
    expect(leafOnly).toMatchObject({ ok: false, reason: 'unknown_ca' });
    const anonymous = await handshake(server, serverCa, check, {});
    expect(anonymous).toEqual({ ok: false, reason: 'no_certificate' });
  });
});

async function handshake(
  server: TestCertificate,
  serverCa: TestCertificate,
  check: (socket: TLSSocket) => Promise<ChainResult<RegisteredCa>>,
  client: { cert?: string; key?: string },
): Promise<ChainResult<RegisteredCa>> {
  let result: Promise<ChainResult<RegisteredCa>> | undefined;
  // No `ca` and rejectUnauthorized false: TLS only collects the certificate; our code judges it.
  const tlsServer = createServer({ cert: server.certPem, key: server.keyPem, requestCert: true, rejectUnauthorized: false }, (socket) => {
    result = check(socket);
    socket.end();
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  const { port } = tlsServer.address() as AddressInfo;
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: serverCa.certPem, ...client });
      socket.on('error', reject);
      socket.on('close', () => resolve());
      socket.resume();
    });
  } finally {
    await new Promise((resolve) => tlsServer.close(resolve));
  }
  if (!result) throw new Error('server saw no connection');
  return result;
}
