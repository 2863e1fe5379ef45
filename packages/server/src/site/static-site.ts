/**
 * Serves the built documentation site (site/build) next to the APIs, so `npm start` gives the
 * platform and its docs together. Routes are exact and have no trailing slash: `/overview` is
 * `overview.html`; anything unknown is the site's own 404 page with a 404 status.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
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

export function createSiteServer(root: string): http.Server {
  const notFound = path.join(root, '404.html');
  return http.createServer((request, response) => {
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
    response.writeHead(status, { 'content-type': type, 'cache-control': cache, 'x-content-type-options': 'nosniff' });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    fs.createReadStream(served).pipe(response);
  });
}
