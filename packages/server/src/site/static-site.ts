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
import { siteSecurityHeaders } from '../http/security-headers';

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
 * Gzipped bodies, made once per file version: the build's files only change when the site is
 * rebuilt, and then their size or modification time changes with them.
 */
export function gzipCache(): (file: string) => Promise<Buffer> {
  const cache = new Map<string, { version: string; body: Promise<Buffer> }>();
  return async (file) => {
    const stat = await fs.promises.stat(file);
    const version = `${stat.size}:${stat.mtimeMs}`;
    const hit = cache.get(file);
    if (hit?.version === version) return hit.body;
    const body = fs.promises.readFile(file).then((raw) => gzipAsync(raw, { level: 9 }));
    // A failed read is not remembered: the next request tries again.
    body.catch(() => cache.delete(file));
    cache.set(file, { version, body });
    return body;
  };
}

export const acceptsGzip = (request: http.IncomingMessage) => /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));

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

export function createSiteServer(root: string, options: { analyticsEndpoint?: string | null } = {}): http.Server {
  const notFound = path.join(root, '404.html');
  const gzipped = gzipCache();
  const securityHeaders = siteSecurityHeaders(options.analyticsEndpoint ?? null);
  return http.createServer((request, response) => securityHeaders(request, response, () => serve(request, response)));

  function serve(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
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
    if (!compressible || !acceptsGzip(request)) {
      response.writeHead(status, headers);
      if (request.method === 'HEAD') response.end();
      else fs.createReadStream(served).pipe(response);
      return;
    }
    gzipped(served).then(
      (body) => {
        response.writeHead(status, { ...headers, 'content-encoding': 'gzip', 'content-length': body.length });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('could not read the file'),
    );
  }
}
