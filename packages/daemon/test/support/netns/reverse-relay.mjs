// Inside a network namespace: the other way round from relay.mjs, a TCP port of the namespace's
// own loopback joined to a Unix socket the test listens on, so a process in the namespace (the
// server sending webhooks) reaches a service of the test without any address outside the
// namespaces. Usage: reverse-relay.mjs <port> <socket path>
import net from 'node:net';

const [port, socketPath] = process.argv.slice(2);
const relay = (client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
};
// Both loopbacks: `localhost` may resolve to either. A namespace without IPv6 has 127.0.0.1 only.
const listen = (host) =>
  new Promise((resolve) => {
    const server = net.createServer(relay);
    server.once('error', () => resolve(false));
    server.listen(Number(port), host, () => resolve(true));
  });
if (!(await listen('127.0.0.1'))) throw new Error(`cannot listen on 127.0.0.1:${port}`);
await listen('::1');
process.stdout.write('ready\n');
