/**
 * Serves the built documentation site (site/build) next to the APIs, so `npm start` gives the
 * platform and its docs together. Routes are exact and have no trailing slash: `/overview` is
 * `overview.html`; anything unknown is the site's own 404 page with a 404 status.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { negotiateEncoding, type Encoding } from '../http/json-compression';
import { siteSecurityHeaders } from '../http/security-headers';
import { redirectToWebConsole, WEB_CONSOLE_PATH, type WebConsoleTarget } from './web-console-link';

const gzipAsync = promisify(gzip);

export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.map': 'application/json',
};

// Text formats shrink three- to five-fold under gzip, which is most of a first visit's bytes.
export const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.xml', '.map']);

/**
 * A build's files compressed for a request, each body made once per file version: the files only
 * change when their build is rerun, and then their size or modification time changes with them.
 *
 * Brotli comes from the `.br` file a build may write beside a file (the console's does:
 * packages/console/vite-plugins/precompress.ts), and only while that file is at least as new as the
 * original: quality 11, about 14% smaller than gzip's best on the console's code, takes about a
 * second per file, too slow for a request. Gzip is made here, at level 9.
 */
export function encodedFiles(): (request: http.IncomingMessage, file: string) => Promise<{ encoding: Encoding; body: Buffer } | null> {
  const cache = new Map<string, { version: string; body: Promise<Buffer> }>();
  const cached = (key: string, version: string, make: () => Promise<Buffer>) => {
    const hit = cache.get(key);
    if (hit?.version === version) return hit.body;
    const body = make();
    // A failed read is not remembered: the next request tries again.
    body.catch(() => cache.delete(key));
    cache.set(key, { version, body });
    return body;
  };
  return async (request, file) => {
    const stat = await fs.promises.stat(file);
    const brotli = await fs.promises.stat(`${file}.br`).catch(() => null);
    const fresh = brotli !== null && brotli.mtimeMs >= stat.mtimeMs;
    const encoding = negotiateEncoding(request.headers['accept-encoding'], fresh ? ['br', 'gzip'] : ['gzip']);
    if (encoding === 'br') return { encoding, body: await cached(`br:${file}`, `${brotli!.size}:${brotli!.mtimeMs}`, () => fs.promises.readFile(`${file}.br`)) };
    if (encoding === 'gzip') return { encoding, body: await cached(`gzip:${file}`, `${stat.size}:${stat.mtimeMs}`, () => fs.promises.readFile(file).then((raw) => gzipAsync(raw, { level: 9 }))) };
    return null;
  };
}

/** The file a URL path names inside root, or null; never a path outside root. */
export function resolveSitePath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = path.posix.normalize(decoded).replace(/^\/+/, '');
  if (relative.startsWith('..')) return null;
  const candidates = relative === '' || relative === '.' ? ['index.html'] : [relative, `${relative}.html`];
  for (const candidate of candidates) {
    const file = path.join(root, candidate);
    if (!file.startsWith(root + path.sep)) continue;
    try {
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not there: try the next form
    }
  }
  return null;
}

export function createSiteServer(root: string, options: { analyticsEndpoint?: string | null; webConsole?: WebConsoleTarget } = {}): http.Server {
  const notFound = path.join(root, '404.html');
  const encoded = encodedFiles();
  const securityHeaders = siteSecurityHeaders(options.analyticsEndpoint ?? null);
  return http.createServer((request, response) => securityHeaders(request, response, () => serve(request, response)));

  function serve(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (options.webConsole && request.url?.split('?')[0] === WEB_CONSOLE_PATH) {
      redirectToWebConsole(options.webConsole, request, response);
      return;
    }
    const file = resolveSitePath(root, request.url ?? '/');
    const status = file ? 200 : 404;
    const served = file ?? (fs.existsSync(notFound) ? notFound : null);
    if (!served) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const type = TYPES[path.extname(served)] ?? 'application/octet-stream';
    // Hashed assets never change; pages do.
    const cache = /\/assets\//.test(served) ? 'public, max-age=31536000, immutable' : 'no-cache';
    const headers: http.OutgoingHttpHeaders = { 'content-type': type, 'cache-control': cache, 'x-content-type-options': 'nosniff' };
    const compressible = COMPRESSIBLE.has(path.extname(served));
    if (compressible) headers.vary = 'accept-encoding';
    if (!compressible) {
      sendPlain();
      return;
    }
    encoded(request, served).then(
      (compressed) => {
        if (!compressed) return sendPlain();
        response.writeHead(status, { ...headers, 'content-encoding': compressed.encoding, 'content-length': compressed.body.length });
        response.end(request.method === 'HEAD' ? undefined : compressed.body);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('could not read the file'),
    );

    function sendPlain() {
      response.writeHead(status, headers);
      if (request.method === 'HEAD') response.end();
      else fs.createReadStream(served!).pipe(response);
    }
  }
}
