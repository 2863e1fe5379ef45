// Sends <megabytes> MB to host:port, waits for the sink's count, prints {"ms", "bytes"}.
import net from 'node:net';

const [host, port, megabytes] = process.argv.slice(2);
const total = Number(megabytes) * 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 7);
const started = process.hrtime.bigint();
const socket = net.connect({ host, port: Number(port) }, () => {
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      sent += chunk.length;
      if (!socket.write(chunk)) return socket.once('drain', pump);
    }
    socket.end();
  };
  pump();
});
let answer = '';
socket.on('data', (data) => (answer += data));
socket.on('close', () => {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stdout.write(`${JSON.stringify({ ms, bytes: Number(answer) })}\n`);
});
socket.on('error', (error) => {
  process.stdout.write(`${JSON.stringify({ error: error.message })}\n`);
  process.exit(1);
});
