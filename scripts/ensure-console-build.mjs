// `npm start` serves the web console (packages/console) at /console/ on the admin port: build it
// when there is no build or its sources changed since (a few seconds). CANOPY_SKIP_CONSOLE=1 skips it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const built = 'packages/console/dist/index.html';

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(file) : fs.statSync(file).mtimeMs);
  }
  return newest;
}

function stale() {
  if (!fs.existsSync(built)) return true;
  const sources = Math.max(newestSource('packages/console/src'), fs.statSync('packages/console/index.html').mtimeMs, newestSource('packages/sdk/src'));
  return sources > fs.statSync(built).mtimeMs;
}

if (process.env.CANOPY_SKIP_CONSOLE !== '1' && fs.existsSync('packages/console/package.json') && stale()) {
  console.log('Building the web console (packages/console/dist).');
  const build = spawnSync('npm', ['run', 'build', '-w', '@canopy/console'], { stdio: 'inherit' });
  if (build.status !== 0) console.error('The web console did not build; starting the platform without it.');
}
