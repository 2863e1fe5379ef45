// Inside a network namespace: joins a Unix socket (the file system is shared with the test) to a
// TCP port of the namespace's own loopback, so the test reaches the server's admin API without
// any address outside the namespaces. Usage: relay.mjs <socket path> <port>
import net from 'node:net';

const [socketPath, port] = process.argv.slice(2);
net
  .createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: Number(port) });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  })
  .listen(socketPath, () => process.stdout.write('ready\n'));
