/**
 * One generated request per sample: an operation's path, query, headers and body, each either
 * valid-looking or hostile, written as raw bytes (so a request can carry what fetch() would
 * refuse to send: invalid percent-encoding, invalid UTF-8, Latin-1 header bytes).
 */
import fc from 'fast-check';
import http from 'node:http';
import https from 'node:https';
import type { Operation, Parameter } from './operations';
import { multipartBodies, type ArchiveSigning } from './multipart-bodies';
import { namedValues } from '../route-resources';
import { hostileValue, validValue, type ValueContext } from './schema-arbitrary';
import { hostileBody, hostileString, rawBodies, serialize } from './values';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** Percent-encoding fragments that are not valid, or decode to invalid UTF-8. */
const BROKEN_ESCAPES = ['%', '%z', '%zz', '%ff%fe', '%c0%af', '%ed%a0%80', '%e2%82', '%00', '%2e%2e%2f', '%25'];

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as any client would send it). */
function encodeText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) out += /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0').toUpperCase()}`;
  return out;
}

/** A path segment: mostly a value naming a real row (a prn, or a legacy name, serial or uuid of this path), else hostile. */
const pathSegment = (parameter: Parameter, context: ValueContext, path: string): fc.Arbitrary<string> =>
  fc.oneof(
    ...(namedValues(context.namedValues ?? new Map(), path, parameter.name) ? [{ arbitrary: fc.constantFrom(...namedValues(context.namedValues!, path, parameter.name)!).map(encodeText), weight: 6 }] : []),
    { arbitrary: validValue(parameter.schema, context, parameter.name === 'prn' ? undefined : parameter.name).map(encodeText), weight: 6 },
    { arbitrary: hostileValue(parameter.schema, context, parameter.name).map(encodeText), weight: 3 },
    { arbitrary: fc.constantFrom(...BROKEN_ESCAPES).map((escape) => `prn${escape}`), weight: 1 },
  );

function queryOf(parameters: Parameter[], context: ValueContext): fc.Arbitrary<string> {
  const pairs = parameters.map((parameter) =>
    fc.option(
      fc.oneof(
        { arbitrary: validValue(parameter.schema, context, parameter.name).map((v) => [`${parameter.name}=${encodeText(v)}`]), weight: 5 },
        { arbitrary: hostileValue(parameter.schema, context, parameter.name).map((v) => [`${parameter.name}=${encodeText(v)}`]), weight: 3 },
        { arbitrary: fc.constantFrom(...BROKEN_ESCAPES).map((escape) => [`${parameter.name}=${escape}`]), weight: 1 },
        // Repeated: Fastify makes an array of a parameter the schema says is one value.
        { arbitrary: fc.tuple(validValue(parameter.schema, context, parameter.name), hostileString).map(([a, b]) => [`${parameter.name}=${encodeText(a)}`, `${parameter.name}=${encodeText(b)}`]), weight: 1 },
      ),
      { freq: 2, nil: [] as string[] },
    ),
  );
  const unknown = fc.option(fc.constantFrom('__proto__[x]=1', 'constructor[prototype][y]=1', 'a[b][c][d][e]=1', '=', '&&&', 'x=%zz', `${'k'.repeat(5000)}=v`), { freq: 5, nil: null });
  return fc.tuple(fc.tuple(...pairs), unknown).map(([chosen, extra]) => {
    const parts = chosen.flat();
    if (extra) parts.push(extra);
    return parts.length ? `?${parts.join('&')}` : '';
  });
}

const headerValue = (parameter: Parameter, context: ValueContext): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: validValue(parameter.schema, context, parameter.name).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')), weight: 5 },
    { arbitrary: hostileValue(parameter.schema, context, parameter.name).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')), weight: 3 },
  );

/** Node's client refuses control characters and code points above 0xff in header values. */
const sendableHeader = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').slice(0, 8000);

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/json\u00ff', ''];

function bodyOf(operation: Operation, context: ValueContext, signing: ArchiveSigning | undefined): fc.Arbitrary<{ body: Buffer | null; contentType: string | null }> {
  if (!operation.body && !operation.multipart && operation.method !== 'PUT' && operation.method !== 'POST') return fc.constant({ body: null, contentType: null });
  const json = (value: fc.Arbitrary<unknown>) => value.map((v) => ({ body: Buffer.from(serialize(v), 'utf8'), contentType: 'application/json' }));
  // A form's operation mostly gets forms (archives good and bad); the JSON cases below as well.
  const forms = operation.multipart ? [{ arbitrary: multipartBodies(operation, context, signing) as fc.Arbitrary<{ body: Buffer | null; contentType: string | null }>, weight: 36 }] : [];
  return fc.oneof(
    ...forms,
    { arbitrary: json(validValue(operation.body ?? undefined, context)), weight: 4 },
    { arbitrary: json(hostileValue(operation.body ?? undefined, context)), weight: 5 },
    { arbitrary: json(hostileBody), weight: 1 },
    { arbitrary: rawBodies.map((body) => ({ body, contentType: 'application/json' })), weight: 1 },
    { arbitrary: fc.tuple(validValue(operation.body ?? undefined, context), fc.constantFrom(...CONTENT_TYPES)).map(([v, contentType]) => ({ body: Buffer.from(serialize(v)), contentType })), weight: 1 },
  );
}

export interface RequestOptions {
  /** The key the fuzzer calls with (admin API); device requests authenticate by certificate. */
  apiKey?: string;
  /** The organization's fwup signing key and product names, for the archives of multipart uploads. */
  signing?: ArchiveSigning;
}

export function requestFor(operation: Operation, context: ValueContext, options: RequestOptions = {}): fc.Arbitrary<FuzzRequest> {
  const byPlace = (place: Parameter['in']) => operation.parameters.filter((p) => p.in === place);
  const segments = byPlace('path').map((parameter) => pathSegment(parameter, context, operation.path).map((value) => [parameter.name, value] as const));
  const headerParameters = byPlace('header');
  const auth = options.apiKey
    ? fc.oneof(
        { arbitrary: fc.constant(`Bearer ${options.apiKey}`), weight: 12 },
        { arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic YTpi', `bearer ${options.apiKey}`, `Bearer ${options.apiKey}x`, `Bearer ${'k'.repeat(7000)}`, 'Bearer cnpy_\u00ff\u00fe'), weight: 1 },
        { arbitrary: hostileString.map((s) => `Bearer ${s}`), weight: 1 },
      )
    : fc.constant(null);
  return fc
    .record({
      segments: fc.tuple(...segments),
      query: queryOf(byPlace('query'), context),
      headers: fc.tuple(...headerParameters.map((p) => fc.option(headerValue(p, context).map((v) => [p.name, v] as const), { freq: 2, nil: null }))),
      requestId: fc.option(hostileString, { freq: 8, nil: null }),
      auth,
      body: bodyOf(operation, context, options.signing),
    })
    .map(({ segments: values, query, headers, requestId, auth: authorization, body }) => {
      let path = operation.path;
      for (const [name, value] of values) path = path.replace(`{${name}}`, value);
      const out: Record<string, string> = {};
      for (const header of headers) if (header) out[header[0]] = sendableHeader(header[1]);
      if (requestId !== null) out['x-request-id'] = sendableHeader(requestId);
      if (authorization !== null) out.authorization = sendableHeader(authorization);
      if (body.contentType !== null && body.contentType !== '') out['content-type'] = sendableHeader(body.contentType);
      return { method: operation.method, path: `${path}${query}`, headers: out, body: body.body };
    });
}

export interface FuzzResponse {
  status: number;
  contentType: string;
  text: string;
}

/** Sends one request as raw bytes through `agent` (keep-alive; mTLS for the device API). */
export function send(baseUrl: string, agent: http.Agent, request: FuzzRequest): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body) headers['content-length'] = String(request.body.length);
    const outgoing = transport.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent },
      (response) => {
        const contentType = String(response.headers['content-type'] ?? '');
        // An event stream that opened has answered; its body never ends, so it is not read.
        if (response.statusCode === 200 && contentType.startsWith('text/event-stream')) {
          response.destroy();
          resolve({ status: 200, contentType, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body ?? undefined);
  });
}
