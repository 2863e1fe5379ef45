import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from './error-handler';

/** A route that puts its path parameter in a Location, as a redirect built from input would. */
const app = Fastify();
installErrorHandling(app);
app.get('/to/:where', async (request, reply) => reply.code(303).header('location', `/page#${(request.params as { where: string }).where}`).header('x-kept', 'yes').send(null));
let base = '';
beforeAll(async () => {
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

describe('error handling', () => {
  it.each(['a%0d%0ab', '%c4%80'])('answers a header Node cannot write (%s) with 400 in the error shape, without the header', async (where) => {
    const res = await fetch(`${base}/to/${where}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: [{ code: 'bad_request', context: { reason: 'unrepresentable_in_header' } }] });
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('x-kept')).toBe('yes');
  });
});
