/**
 * stalling-clients.ts as a process, for a network namespace (address-namespaces.ts):
 * `node --import tsx stalling-clients-process.ts '<options as JSON, hello in hex>' <seconds>`.
 * It holds its connections that long, prints its stats as one JSON line and exits.
 */
import { holdStallingConnections } from './stalling-clients';

const options = JSON.parse(process.argv[2]);
const clients = holdStallingConnections({ ...options, hello: Buffer.from(options.hello, 'hex') });
setTimeout(() => {
  console.log(JSON.stringify(clients.stop()));
  process.exit(0);
}, Number(process.argv[3]) * 1000);
