/**
 * The Content-Security-Policy of an HTML file of the console build. Every answer carries helmet's
 * policy, whose script-src allows the origin's own files and no inline script. fleet.html holds
 * inline scripts (one starts the fleet view's first requests while the code downloads, another
 * shows the screen's frame and then starts the code: packages/console/vite-plugins/), so that
 * file's policy also allows exactly those scripts, by their SHA-256, and nothing else inline. The hashes are read from the file itself,
 * so they cannot drift from the build; they are kept per file version.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/** `'sha256-…'` sources for each inline script of `html`, as CSP hashes them (its exact text). */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map(([, text]) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
}

/** `policy` with `hashes` added to its script-src (or a script-src of 'self' and them, if it had none). */
export function withScriptHashes(policy: string, hashes: string[]): string {
  if (hashes.length === 0) return policy;
  const directives = policy.split(';').map((d) => d.trim()).filter(Boolean);
  const index = directives.findIndex((d) => d.split(/\s+/)[0].toLowerCase() === 'script-src');
  if (index === -1) return [...directives, `script-src 'self' ${hashes.join(' ')}`].join(';');
  directives[index] = `${directives[index]} ${hashes.join(' ')}`;
  return directives.join(';');
}

/** The inline script hashes of an HTML file, read again only when the file changes. */
export function inlineScriptHashesOfFiles(): (file: string) => string[] {
  const cache = new Map<string, { mtimeMs: number; size: number; hashes: string[] }>();
  return (file) => {
    const stat = fs.statSync(file);
    const known = cache.get(file);
    if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.hashes;
    const hashes = inlineScriptHashes(fs.readFileSync(file, 'utf8'));
    cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, hashes });
    return hashes;
  };
}
