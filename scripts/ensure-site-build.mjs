// `npm start` serves the documentation site beside the APIs: build it on the first start
// (a few minutes once), and reuse the build afterwards. CANOPY_SKIP_SITE=1 skips it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

if (process.env.CANOPY_SKIP_SITE !== '1' && !fs.existsSync('site/build/index.html')) {
  console.log('Building the documentation site once (site/build); later starts reuse it.');
  const build = spawnSync('npm', ['run', 'build', '-w', '@canopy/site'], { stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('The documentation site did not build; starting the platform without it.');
  }
}
