/**
 * The baseline for the device API: a bare Fastify HTTPS server that requires a client
 * certificate signed by the device CA (lib/bare-tls.ts), answering JSON.
 */
import Fastify from 'fastify';
import { bareMtlsOptions } from './bare-tls';

const app = Fastify({ logger: false, https: bareMtlsOptions() });
app.get('/*', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
