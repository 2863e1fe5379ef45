/**
 * Sending the console build's files: content type, caching (hashed assets immutable, the rest
 * revalidated), compression (brotli or gzip), with the documentation site's file helpers
 * (site/static-site.ts), and an HTML file's inline scripts allowed by hash (inline-script-policy.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COMPRESSIBLE, encodedFiles, resolveSitePath, TYPES } from '../site/static-site';
import { inlineScriptHashesOfFiles, withScriptHashes } from './inline-script-policy';

export const consoleBuildPresent = (root: string) => fs.existsSync(path.join(root, 'index.html'));

/** The file `rest` (the path after /console/) names inside the build, or null; never outside it. */
export const resolveConsoleFile = (root: string, rest: string) => resolveSitePath(root, `/${rest}`);

export function consoleFileSender(root: string): (request: FastifyRequest, reply: FastifyReply, file: string) => Promise<FastifyReply> {
  const encoded = encodedFiles();
  const scriptHashes = inlineScriptHashesOfFiles();
  const assets = path.join(root, 'assets') + path.sep;
  return async (request, reply, file) => {
    const ext = path.extname(file);
    reply
      .header('content-type', TYPES[ext] ?? 'application/octet-stream')
      .header('cache-control', file.startsWith(assets) ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff');
    if (ext === '.html') {
      reply.header('x-frame-options', 'DENY');
      const policy = reply.getHeader('content-security-policy');
      if (typeof policy === 'string') reply.header('content-security-policy', withScriptHashes(policy, scriptHashes(file)));
    }
    if (!COMPRESSIBLE.has(ext)) return reply.send(fs.createReadStream(file));
    reply.header('vary', 'accept-encoding');
    const compressed = await encoded(request.raw, file);
    if (!compressed) return reply.send(fs.createReadStream(file));
    return reply.header('content-encoding', compressed.encoding).send(compressed.body);
  };
}
