// The device's services for the tunnel tests: a TCP echo server on 127.0.0.1 at each given port.
import net from 'node:net';

const ports = process.argv.slice(2).map(Number);
let ready = 0;
for (const port of ports) {
  net
    .createServer((socket) => {
      socket.on('error', () => socket.destroy());
      socket.pipe(socket);
    })
    .listen(port, '127.0.0.1', () => {
      if (++ready === ports.length) process.stdout.write('ready\n');
    });
}
