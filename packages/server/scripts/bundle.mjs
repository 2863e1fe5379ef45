/**
 * Bundles the server (src/main.ts and the workspace code it imports) into dist/main.mjs, which
 * `npm start` runs with plain node. Running the TypeScript through a loader (tsx) kept a second
 * V8 isolate for the loader's hooks and the tsx process itself: ~40 MB more memory for the
 * server. Dependencies stay external (loaded from node_modules as usual), and modules imported
 * lazily (PGlite, S3) stay lazy, as chunks of their own. Takes well under a second.
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { dependencies } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const external = Object.keys(dependencies)
  .filter((name) => !name.startsWith('@canopy/'))
  .flatMap((name) => [name, `${name}/*`]);
const outdir = path.join(root, 'dist');

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  logLevel: 'warning',
});
