import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

// Serves site/build the way the production host must: /a/b -> a/b.html (trailingSlash: false),
// assets as files, and 404.html with status 404 for anything else.
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
};

export function resolveFile(root: string, urlPath: string): string | null {
  const clean = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  const rel = path.normalize(clean).replace(/^(\.\.[/\\])+/, '');
  const candidates = rel === '/' ? ['index.html'] : [rel, `${rel}.html`, path.join(rel, 'index.html')];
  for (const c of candidates) {
    const full = path.join(root, c);
    if (full.startsWith(root) && fs.existsSync(full) && fs.statSync(full).isFile()) return full;
  }
  return null;
}

export async function startStaticServer(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const file = resolveFile(root, req.url ?? '/');
    const served = file ?? path.join(root, '404.html');
    res.writeHead(file ? 200 : 404, { 'content-type': TYPES[path.extname(served)] ?? 'application/octet-stream' });
    const body = fs.readFileSync(served);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
