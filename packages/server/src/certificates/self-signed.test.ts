import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { importIssuer } from './issue';
import { parseCertificateInput } from './pem';
import { generateServerIdentity, issueServerCertificate, serverNames } from './self-signed';

describe('generateServerIdentity', () => {
  it('makes a CA and a server certificate for the given hostnames plus localhost', async () => {
    const identity = await generateServerIdentity({ hostnames: ['Devices.Example.com', '10.0.0.5'] });
    const ca = new X509Certificate(identity.caCertPem);
    const server = new X509Certificate(identity.serverCertPem);

    expect(ca.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.verify(ca.publicKey)).toBe(true);
    const summary = parseCertificateInput(identity.serverCertPem);
    expect(summary.ok && summary.value.summary.commonName).toBe('devices.example.com');
    expect(server.checkHost('devices.example.com')).toBe('devices.example.com');
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkIP('10.0.0.5')).toBe('10.0.0.5');
    expect(identity.caKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(identity.serverKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('serves TLS that a client pinning only the CA accepts, also after re-issuing from the stored CA', async () => {
    const identity = await generateServerIdentity();
    const reissued = await issueServerCertificate(await importIssuer(identity.caCertPem, identity.caKeyPem), { hostnames: ['other.example'] });
    for (const { cert, key } of [
      { cert: identity.serverCertPem, key: identity.serverKeyPem },
      { cert: reissued.certPem, key: reissued.keyPem },
    ]) {
      expect(await handshakeAuthorized(cert, key, identity.caCertPem)).toBe(true);
    }
  });
});

describe('serverNames', () => {
  it('puts configured names first and always includes the local ones, once', () => {
    expect(serverNames([' Canopy.Example ', 'localhost', ''])).toEqual(['canopy.example', 'localhost', '127.0.0.1']);
    expect(serverNames([])).toEqual(['localhost', '127.0.0.1']);
  });
});

async function handshakeAuthorized(cert: string, key: string, ca: string): Promise<boolean> {
  const server = createServer({ cert, key }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<boolean>((resolve, reject) => {
      // servername 'localhost' checks the DNS SAN; the connection itself goes to 127.0.0.1.
      const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca }, () => {
        resolve(socket.authorized);
        socket.destroy();
      });
      socket.on('error', reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
