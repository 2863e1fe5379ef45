// The operator: connects from a chosen source address, sends a line and prints one JSON result:
// {"echo": "..."} when the bytes came back, {"refused": "<why>"} when the connection was refused
// or closed before any byte came back. With --hold it then keeps the connection open and prints
// {"ended_after_ms": n} when the far end closes it.
// Usage: tcp-client.mjs <source> <host> <port> <text> [--hold]
import net from 'node:net';

const [source, host, port, text, hold] = process.argv.slice(2);
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const socket = net.connect({ host, port: Number(port), localAddress: source });
let received = '';
let echoedAt = 0;
const timer = setTimeout(() => {
  print({ refused: 'timeout' });
  process.exit(0);
}, 5000);
socket.on('connect', () => socket.write(text));
socket.on('data', (chunk) => {
  received += chunk;
  if (received === text && !echoedAt) {
    clearTimeout(timer);
    echoedAt = Date.now();
    print({ echo: received });
    if (hold !== '--hold') socket.end();
  }
});
socket.on('error', (error) => {
  if (!echoedAt) {
    clearTimeout(timer);
    print({ refused: error.code ?? error.message });
    process.exit(0);
  }
});
socket.on('close', () => {
  if (!echoedAt) {
    clearTimeout(timer);
    print({ refused: 'closed' });
  } else if (hold === '--hold') print({ ended_after_ms: Date.now() - echoedAt });
  process.exit(0);
});
