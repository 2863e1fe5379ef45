/**
 * Bundles canopy-daemon into one file, dist/canopy-daemon.mjs, that needs only node 20 or later
 * on the device: every dependency (the SDK's device client) is inlined, and Node's own modules
 * are all it imports. Takes well under a second.
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/canopy-daemon.mjs');
fs.rmSync(path.dirname(outfile), { recursive: true, force: true });
await build({
  entryPoints: [path.join(root, 'src/cli.ts')],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // tar-stream (the tar installer), tuf-js and @tufjs/models are CommonJS and require() Node's modules: give the ESM bundle a require.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __canopyCreateRequire } from 'node:module';\nconst require = __canopyCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
fs.chmodSync(outfile, 0o755);
