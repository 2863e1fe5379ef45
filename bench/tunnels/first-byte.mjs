// Tries host:port until one byte comes back through it (300 ms per attempt), then prints
// {"ms": now - <since epoch ms>}. Usage: first-byte.mjs <host> <port> <since>
import net from 'node:net';

const [host, port, since] = process.argv.slice(2);
function attempt() {
  const socket = net.connect({ host, port: Number(port) });
  const timer = setTimeout(() => socket.destroy(new Error('timeout')), 300);
  socket.on('connect', () => socket.write('x'));
  socket.once('data', () => {
    clearTimeout(timer);
    process.stdout.write(`${JSON.stringify({ ms: Date.now() - Number(since) })}\n`);
    socket.destroy();
    process.exit(0);
  });
  // A refused, reset or timed-out attempt closes the socket: try again shortly.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearTimeout(timer);
    setTimeout(attempt, 50);
  });
}
attempt();
