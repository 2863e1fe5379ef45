/**
 * The baseline every API figure is compared with: a bare Fastify server answering JSON.
 * With BODY_BYTES set it answers a fixed JSON body of that size instead, to show what the load
 * generator and HTTP alone can do for responses as large as the measured route's. That body is
 * encoded once, at start: a string would be measured and utf8-encoded again on every request,
 * work no server of a fixed body need do, and this one is meant to be the cheapest there is.
 */
import Fastify from 'fastify';

const bodyBytes = Number(process.env.BODY_BYTES ?? 0);
const fixedBody = bodyBytes > 0 ? Buffer.from(`{"body":"${'x'.repeat(Math.max(0, bodyBytes - 11))}"}`) : null;

const app = Fastify({ logger: false });
if (fixedBody) app.get('/*', (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(fixedBody));
else app.get('/*', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
