/**
 * The admin API compresses JSON answers for clients that ask (http/json-compression.ts): brotli
 * or gzip by Accept-Encoding, the same JSON once decompressed, small answers and the event stream
 * left alone. Requests go over node:http, which, unlike fetch, does not decompress on its own.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_BYTES } from '../../src/http/json-compression';
import { createFleet } from '../support/fleet';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  const fleet = await createFleet(t.api);
  for (let i = 0; i < 12; i += 1) await fleet.device({ tags: ['east', `rack-${i}`] });
});
afterAll(async () => {
  await t?.close();
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** GET `path` with exactly these headers; the body as the server sent it. */
function rawGet(path: string, headers: Record<string, string>, until?: (received: Buffer) => boolean): Promise<RawAnswer> {
  const url = new URL(path, t.url);
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${t.apiKey}`, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      const answer = () => ({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (until?.(Buffer.concat(chunks))) {
          resolve(answer());
          request.destroy();
        }
      });
      response.on('end', () => resolve(answer()));
    });
    request.on('error', reject);
  });
}

describe('compressed JSON answers', () => {
  it('sends a page of devices as brotli or gzip as the client asks, the same JSON once decompressed', async () => {
    const plain = await rawGet('/devices?limit=100', {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.length).toBeGreaterThan(MIN_BYTES);
    const expected = JSON.parse(plain.body.toString());
    expect(expected.devices).toHaveLength(12);

    const br = await rawGet('/devices?limit=100', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toEqual(expected);

    const gzip = await rawGet('/devices?limit=100', { 'accept-encoding': 'br;q=0, gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString())).toEqual(expected);
  });

  it('leaves answers under the threshold alone', async () => {
    const me = await rawGet('/users/me', { 'accept-encoding': 'gzip, br' });
    expect(me.status).toBe(200);
    expect(me.body.length).toBeLessThan(MIN_BYTES);
    expect(me.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(me.body.toString()).data).toBeTruthy();
  });

  it('never compresses the event stream, whose messages must arrive as they happen', async () => {
    const stream = await rawGet('/events/stream', { 'accept-encoding': 'gzip, br' }, (received) => received.length > 0);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['content-encoding']).toBeUndefined();
  });
});
