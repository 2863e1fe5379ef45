/**
 * The `deb` installer: reads the package's name and version with `dpkg-deb`, refuses a version
 * older than the installed one unless `deb.allow_downgrade` (then dpkg is told so), and installs
 * with `dpkg -i`. Re-running after a power cut is dpkg's own recovery: installing the same
 * version again is allowed and finishes what was cut. `root` (tests; a device image being built)
 * runs dpkg with `--root`, so its database and files live under that directory.
 */
import path from 'node:path';
import type { DaemonConfig } from '../config/types.ts';
import type { InstallContext, InstallOutcome, Installer } from './installer.ts';
import { onPath, run, runOrThrow } from './tools.ts';

export interface DebInstallerOptions {
  /** Install into this root (dpkg --root); default the running system. */
  root?: string;
}

/** Package, Version and Architecture fields of a .deb. */
export async function debFields(file: string, signal?: AbortSignal): Promise<{ name: string; version: string; architecture: string }> {
  const { stdout } = await runOrThrow('dpkg-deb', 'dpkg-deb', ['--show', '--showformat=${Package}\\n${Version}\\n${Architecture}\\n', '--', file], { signal });
  const [name, version, architecture] = stdout.split('\n');
  if (!name || !version) throw new Error('not a Debian package: dpkg-deb found no Package or Version');
  return { name, version, architecture };
}

export function createDebInstaller(options: DebInstallerOptions = {}): Installer {
  const rootArgs = options.root ? [`--root=${options.root}`] : [];
  const adminArgs = options.root ? [`--admindir=${path.join(options.root, 'var/lib/dpkg')}`] : [];

  /** The installed version of `name` (fully installed or half-installed), or null. */
  async function installedVersion(name: string, signal: AbortSignal): Promise<string | null> {
    const result = await run('dpkg-query', [...adminArgs, '--showformat=${Version}\\t${db:Status-Abbrev}', '--show', '--', name], { signal });
    if (result.code !== 0) return null;
    const [version, status] = result.stdout.split('\t');
    return version && status && !status.startsWith('un') && !status.startsWith('pn') ? version : null;
  }

  return {
    name: 'deb',
    unavailable(_config: DaemonConfig) {
      const missing = ['dpkg', 'dpkg-deb', 'dpkg-query'].filter((tool) => !onPath(tool));
      return missing.length ? `deb needs ${missing.join(', ')} on the device's PATH` : null;
    },
    async install({ file, metadata, log, signal }: InstallContext): Promise<InstallOutcome> {
      const allowDowngrade = metadata.deb?.allow_downgrade ?? false;
      const pkg = await debFields(file, signal);
      const installed = await installedVersion(pkg.name, signal);
      let downgrade = false;
      if (installed !== null) {
        const older = await run('dpkg', ['--compare-versions', pkg.version, 'lt', installed], { signal });
        downgrade = older.code === 0;
        if (downgrade && !allowDowngrade) {
          throw new Error(`${pkg.name} ${pkg.version} is older than the installed ${installed}; set custom_metadata.canopy.deb.allow_downgrade to install it`);
        }
      }
      log.info('deb installing', { package: pkg.name, version: pkg.version, installed, downgrade });
      const args = [...rootArgs, ...(downgrade ? ['--force-downgrade'] : ['--refuse-downgrade']), '--install', '--', file];
      await runOrThrow('dpkg --install', 'dpkg', args, { signal, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
      log.info('deb installed', { package: pkg.name, version: pkg.version });
      return { rebootRequired: metadata.reboot_required };
    },
  };
}

export const debInstaller = createDebInstaller();
