// Counts the bytes of each connection and answers the count when the sender ends.
// Usage: sink.mjs <host:port>...
import net from 'node:net';

const targets = process.argv.slice(2);
let ready = 0;
for (const target of targets) {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  net
    .createServer((socket) => {
      let bytes = 0;
      socket.on('data', (chunk) => (bytes += chunk.length));
      socket.on('end', () => socket.end(String(bytes)));
      socket.on('error', () => socket.destroy());
    })
    .listen(port, host, () => {
      if (++ready === targets.length) process.stdout.write('ready\n');
    });
}
