// `npm test` for the site: build it if needed, make sure Debian's Chromium is present (never a
// downloaded browser), then run the vitest suites against the built output.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const siteDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: siteDir, ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!fs.existsSync(path.join(siteDir, 'build/index.html'))) run('npm', ['run', 'build']);
if (!fs.existsSync('/usr/bin/chromium')) {
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', 'chromium']);
}
run('npx', ['vitest', 'run', ...process.argv.slice(2)]);
