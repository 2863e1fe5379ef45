#!/usr/bin/env node
// Runs the bundled daemon when it is built (npm run bundle -w @canopy/daemon), else the
// TypeScript sources through tsx. Devices run dist/canopy-daemon.mjs alone: it needs only node.
import fs from 'node:fs';

const bundled = new URL('../dist/canopy-daemon.mjs', import.meta.url);
if (fs.existsSync(bundled)) {
  await import(bundled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
