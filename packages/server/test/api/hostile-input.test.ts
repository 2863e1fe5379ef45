/**
 * The input rules the route fuzzers found, each stated once as a plain test: text holding U+0000
 * and JSON nested too deep are refused naming the field; answers made before any route runs
 * (long path parameter, broken percent-encoding, oversized request head) carry the error shape;
 * a page cursor naming an impossible date is a 400, not a database error.
 */
import net from 'node:net';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/validation';
import { controlCharacterRequests, sendAll } from '../support/control-character-paths';
import { contractBreach } from '../support/fuzz/checks';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';

const t = useTestServer();

async function artifact(): Promise<string> {
  const product = await t.api('POST', '/products', { name: `hostile-${Math.random().toString(36).slice(2)}` });
  const res = await t.api('POST', '/artifacts', { name: 'rootfs', product_prn: product.body.product.prn });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.artifact.prn;
}

/** Sends raw bytes and answers the status line and the body (for what fetch refuses to send). */
async function raw(request: string): Promise<{ status: number; body: any }> {
  const { port } = new URL(t.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.end(request);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const [head, ...rest] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('text input', () => {
  it('refuses U+0000 in a text field with 422 naming it, and stores nothing', async () => {
    const prn = await artifact();
    expectFieldError(await t.api('PATCH', `/artifacts/${prn}`, { description: 'before\u0000after' }), 'description', 'contains_nul_character');
    expectFieldError(await t.api('PATCH', `/artifacts/${prn}`, { custom_metadata: { nested: ['ok', 'bad\u0000'] } }), 'custom_metadata.nested.1', 'contains_nul_character');
    expectFieldError(await t.api('PATCH', `/artifacts/${prn}`, { custom_metadata: { ['key\u0000']: 1 } }), 'custom_metadata.key\u0000', 'contains_nul_character');
    expect((await t.api('GET', `/artifacts/${prn}`)).body.artifact.description).toBeNull();
  });

  it('refuses U+0000 in a query parameter or path parameter with 400 naming it', async () => {
    const list = await t.api('GET', '/products?search=%00');
    expect(list.status).toBe(400);
    expect(list.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'search', reason: 'contains_nul_character' } });
    const one = await t.api('GET', '/products/prn%00');
    expect(one.status).toBe(400);
    expect(one.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'prn', reason: 'contains_nul_character' } });
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels, however deep`, async () => {
    const prn = await artifact();
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const res = await t.api('PATCH', `/artifacts/${prn}`, undefined, { raw: `{"custom_metadata":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`, headers: { 'content-type': 'application/json' } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ code: 'validation', context: { reason: 'too_deeply_nested', max: MAX_JSON_DEPTH } });
    }
    const fine = { custom_metadata: JSON.parse(`${'{"a":'.repeat(MAX_JSON_DEPTH - 2)}1${'}'.repeat(MAX_JSON_DEPTH - 2)}`) };
    expect((await t.api('PATCH', `/artifacts/${prn}`, fine)).status).toBe(200);
  });
});

describe('control characters in path parameters', () => {
  it('are refused in every path parameter of every route with a 4xx in the error shape, never a 5xx', async () => {
    const requests = controlCharacterRequests(t.server.admin.swagger());
    expect(requests.length).toBeGreaterThan(1000);
    const answers = await sendAll(t.url, requests, { authorization: `Bearer ${t.apiKey}` });
    const breaches = answers.flatMap(({ request, ...response }) => {
      const breach = contractBreach(response);
      return breach ? [`${breach}: ${request.method} ${request.path} (${request.headers.accept}) -> ${response.text.slice(0, 200)}`] : [];
    });
    expect(breaches).toEqual([]);
  });

  it('a CR/LF in the shell URL, as a browser asks for it: 400 naming the parameter, no Location', async () => {
    const res = await fetch(`${t.url}/web-console/shells/%0d%0aX`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({ errors: [{ code: 'parameter', context: { parameter: 'token', reason: 'contains_control_character' } }] });
  });
});

describe('answers made before a route runs', () => {
  it('a path parameter over the length limit: 414 in the error shape', async () => {
    const res = await t.api('GET', `/products/${'p'.repeat(150)}`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ errors: [{ code: 'parameter', context: { parameter: 'path', reason: 'too_long', max: 100 } }] });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('a path with broken percent-encoding: 400 in the error shape', async () => {
    const res = await raw(`GET /products/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(res).toEqual({ status: 400, body: { errors: [{ code: 'parameter', context: { parameter: 'path', reason: 'invalid_percent_encoding' } }] } });
  });

  it('a request head over 16 KB: 431; an unparseable request: 400; both in the error shape', async () => {
    const long = await raw(`GET /products?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(long).toEqual({ status: 431, body: { errors: [{ code: 'headers_too_large', context: { reason: 'request_line_and_headers_over_16kb' } }] } });
    const garbage = await raw(`NOT A REQUEST\r\n\r\n`);
    expect(garbage.status).toBe(400);
    expect(garbage.body.errors[0].code).toBe('malformed_request');
  });

  it('a client still sending its oversized head gets the 431, not a reset', async () => {
    // Over the device API's TLS, where the refusal would otherwise race the client's bytes.
    const { port } = new URL(t.deviceUrl);
    const socket = tls.connect({ port: Number(port), host: '127.0.0.1', ca: t.deviceServerCaPem, servername: 'localhost' });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    // Read only once everything is sent, as a client busy sending would.
    socket.pause();
    const chunks: Buffer[] = [];
    const closed = new Promise<Error | undefined>((resolve) => {
      socket.on('error', resolve);
      socket.on('close', () => resolve(undefined));
    });
    socket.write(`GET /device/update?x=${'a'.repeat(20_000)}`);
    // The server refuses the head while more of it is on its way.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 8 && !socket.destroyed; i++) socket.write('a'.repeat(64_000));
    socket.end();
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.resume();
    expect(await closed).toBeUndefined();
    expect(Buffer.concat(chunks).toString('utf8')).toMatch(/^HTTP\/1\.1 431 /);
  });
});

describe('page cursors', () => {
  it('a cursor naming a date that does not exist is a 400, not a database error', async () => {
    const page = Buffer.from(JSON.stringify(['0000-00-00T00:00:00Z', '00000000-0000-4000-8000-000000000000'])).toString('base64url');
    const res = await t.api('GET', `/products?page=${page}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'page', reason: 'invalid_cursor' } });
  });
});
