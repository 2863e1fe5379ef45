/**
 * The TLS settings of the bare mutual-TLS servers the device API is measured against (the
 * hello-world and the update-check floor), from TLS_CERT, TLS_KEY and CLIENT_CA: the client
 * certificate required and verified by OpenSSL's static trust store, and session tickets off as
 * on the device API (device-api/app.ts): issuing one costs a server about a sixth of a full
 * handshake's CPU, which a baseline would pay and Canopy not.
 */
import { constants } from 'node:crypto';
import fs from 'node:fs';
import type { TLSSocket } from 'node:tls';

export function bareMtlsOptions() {
  return {
    key: fs.readFileSync(process.env.TLS_KEY!, 'utf8'),
    cert: fs.readFileSync(process.env.TLS_CERT!, 'utf8'),
    ca: fs.readFileSync(process.env.CLIENT_CA!, 'utf8'),
    requestCert: true,
    rejectUnauthorized: true,
    secureOptions: constants.SSL_OP_NO_TICKET,
  };
}

/** The connection's certificate fingerprint as registered (upper-case hex), once per connection. */
const fingerprints = new WeakMap<object, string>();
export function peerFingerprint(socket: TLSSocket): string {
  let fingerprint = fingerprints.get(socket);
  if (!fingerprint) {
    fingerprint = socket.getPeerX509Certificate()!.fingerprint256.replace(/:/g, '');
    fingerprints.set(socket, fingerprint);
  }
  return fingerprint;
}
