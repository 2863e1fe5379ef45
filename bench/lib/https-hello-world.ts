/**
 * The baseline for the device API: a bare Fastify HTTPS server that requires a client
 * certificate signed by the device CA (verified by OpenSSL's static trust store), answering JSON.
 */
import Fastify from 'fastify';
import fs from 'node:fs';

const app = Fastify({
  logger: false,
  https: {
    key: fs.readFileSync(process.env.TLS_KEY!, 'utf8'),
    cert: fs.readFileSync(process.env.TLS_CERT!, 'utf8'),
    ca: fs.readFileSync(process.env.CLIENT_CA!, 'utf8'),
    requestCert: true,
    rejectUnauthorized: true,
  },
});
app.get('/*', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
