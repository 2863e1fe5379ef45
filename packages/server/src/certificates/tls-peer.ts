// Hands the device server's chain check what the client actually sent: its certificate and the
// certificates after it, as OpenSSL decoded them during the handshake. A chain verified before is
// recognised by their bytes (`raw`, verified-chains.ts); a new one is checked on these objects,
// where parsing the DER again would cost about 0.2 ms per certificate (OpenSSL 3 decodes the
// public key on every parse).
// Read with socket.getPeerX509Certificate(), whose `issuerCertificate` links what the client sent,
// in order: microseconds, where getPeerCertificate(true) builds detailed objects nothing reads.
// Node 20 pitfall (tls-peer.test.ts): that first call takes the sent certificates off the
// connection, so a later call of either method sees the leaf alone. The answer is therefore
// remembered per socket: callers must use this function, never ask the socket again.
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

export interface PeerCertificates {
  /** The client's certificate; undefined when it sent none. */
  leaf: X509Certificate | undefined;
  /** Each further certificate the client sent, in the order sent. */
  intermediates: X509Certificate[];
}

// Clients never need more; the bound also protects against a cyclic link.
const MAX_LINKS = 10;

const bySocket = new WeakMap<TLSSocket, PeerCertificates>();

export function peerCertificates(socket: TLSSocket): PeerCertificates {
  let peer = bySocket.get(socket);
  if (!peer) bySocket.set(socket, (peer = readPeerCertificates(socket)));
  return peer;
}

function readPeerCertificates(socket: TLSSocket): PeerCertificates {
  // Undefined without a client certificate (or once the socket closed).
  const first: X509Certificate | undefined = socket.getPeerX509Certificate();
  if (!first) return { leaf: undefined, intermediates: [] };
  const intermediates: X509Certificate[] = [];
  let link = first;
  for (let i = 0; i < MAX_LINKS; i += 1) {
    const next: X509Certificate | undefined = link.issuerCertificate;
    if (!next || next === link) break;
    intermediates.push(next);
    link = next;
  }
  return { leaf: first, intermediates };
}
