/**
 * Waits for a connection's first TLS record (the ClientHello) to arrive whole before the TLS
 * layer sees the socket, so a socket that stays silent, or sends a byte now and then, never
 * counts as a handshake (handshake-shedding.ts). The bytes read are put back on the socket
 * (`unshift`), and Node's TLS socket feeds what is buffered there to OpenSSL when it wraps it.
 */
import type { Socket } from 'node:net';

const HEADER_BYTES = 5;
const HANDSHAKE_CONTENT_TYPE = 0x16;
/** The largest record TLS allows (RFC 8446 section 5.2: 2^14 + 256 for TLS 1.3, 2^14 + 2048 before). */
const MAX_RECORD_BYTES = 16_384 + 2_048;

export type FirstRecord = 'partial' | 'complete' | 'not-tls';

/** What a connection's first bytes hold so far: `header` is up to the first five, `length` how many came. */
export function firstRecordState(header: Uint8Array, length: number): FirstRecord {
  if (header.length >= 1 && header[0] !== HANDSHAKE_CONTENT_TYPE) return 'not-tls';
  // legacy_record_version is 3.x in every TLS and SSL 3 record.
  if (header.length >= 2 && header[1] !== 3) return 'not-tls';
  if (header.length < HEADER_BYTES) return 'partial';
  const recordBytes = (header[3] << 8) | header[4];
  if (recordBytes === 0 || recordBytes > MAX_RECORD_BYTES) return 'not-tls';
  return length >= HEADER_BYTES + recordBytes ? 'complete' : 'partial';
}

export interface FirstRecordListener {
  /** The record is whole and back in the socket's buffer; the socket is paused. */
  complete(): void;
  /** The bytes cannot start a TLS handshake. */
  notTls(): void;
}

export function awaitFirstRecord(socket: Socket, listener: FirstRecordListener): void {
  const chunks: Buffer[] = [];
  let length = 0;
  // The first five bytes, joined once: a client sending one byte at a time costs no copying.
  let header = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    if (header.length < HEADER_BYTES) header = Buffer.concat(chunks).subarray(0, HEADER_BYTES);
    const state = firstRecordState(header, length);
    if (state === 'partial') return;
    socket.removeListener('data', onData);
    socket.pause();
    if (state === 'not-tls') return listener.notTls();
    socket.unshift(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length));
    listener.complete();
  };
  socket.on('data', onData);
}
