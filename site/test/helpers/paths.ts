import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const siteDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const buildDir = path.join(siteDir, 'build');
export const repoDir = path.resolve(siteDir, '..');

export function expectedRoutes(): string[] {
  return (JSON.parse(fs.readFileSync(path.join(siteDir, 'routes.json'), 'utf8')) as { routes: string[] }).routes;
}

/** Routes of the built site, read from its HTML files (trailingSlash: false gives a/b.html). */
export function builtRoutes(): string[] {
  const routes: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'assets') walk(full);
      } else if (entry.name.endsWith('.html') && full !== path.join(buildDir, '404.html')) {
        const rel = path.relative(buildDir, full).replace(/\\/g, '/').replace(/\.html$/, '');
        routes.push(rel === 'index' ? '/' : `/${rel}`);
      }
    }
  };
  walk(buildDir);
  return routes.sort();
}
