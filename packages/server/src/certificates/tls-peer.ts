// Hands the device server's chain check what the client actually sent. Node exposes the peer's
// chain only as the `issuerCertificate` links of getPeerCertificate(true); this flattens them.
//
// Node 20 pitfall (seen in tls-peer.test.ts): once socket.getPeerX509Certificate() has been
// called on a server socket, getPeerCertificate(true) no longer links the client's intermediates.
// So the leaf is taken from getPeerCertificate's DER instead, and callers should use this
// function rather than getPeerX509Certificate() on the same socket. DER, not parsed: a chain
// verified before is recognised by its bytes (verified-chains.ts) without parsing anything.
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

export interface PeerCertificates {
  /** DER of the client's certificate; undefined when it sent none. */
  leaf: Buffer | undefined;
  /** DER of each further certificate the client sent, nearest issuer first. */
  intermediates: Buffer[];
}

// Clients never need more; the bound also protects against a cyclic link.
const MAX_LINKS = 10;

export function peerCertificates(socket: TLSSocket): PeerCertificates {
  const first: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  // Without a client certificate Node answers an empty object (or null once the socket closed).
  if (!first?.raw || first.raw.length === 0) return { leaf: undefined, intermediates: [] };

  const intermediates: Buffer[] = [];
  let link = first;
  for (let i = 0; i < MAX_LINKS; i += 1) {
    const next: DetailedPeerCertificate | undefined = link.issuerCertificate;
    // Node links a self-issued certificate to itself; stop there.
    if (!next?.raw || next === link || next.raw.equals(link.raw)) break;
    intermediates.push(next.raw);
    link = next;
  }
  return { leaf: first.raw, intermediates };
}
