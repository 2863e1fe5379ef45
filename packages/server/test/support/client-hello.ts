/**
 * The bytes a TLS client opens with (its ClientHello record), caught from Node's own client by a
 * plain TCP listener, for tests that send them by hand: in one piece and then stall, or one byte
 * at a time.
 */
import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';

export async function captureClientHello(): Promise<Buffer> {
  let hello: (bytes: Buffer) => void = () => {};
  const caught = new Promise<Buffer>((resolve) => (hello = resolve));
  const listener = net.createServer((socket) => {
    let bytes = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      // A whole record: its 5-byte header announces the rest's length.
      if (bytes.length >= 5 && bytes.length >= 5 + bytes.readUInt16BE(3)) {
        hello(bytes.subarray(0, 5 + bytes.readUInt16BE(3)));
        socket.destroy();
      }
    });
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const client = tls.connect({ port: (listener.address() as net.AddressInfo).port, host: '127.0.0.1', servername: 'localhost' });
  client.on('error', () => {});
  try {
    return await caught;
  } finally {
    client.destroy();
    listener.close();
  }
}
