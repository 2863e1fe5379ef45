/**
 * The `rpm` installer: reads the package's name and epoch:version-release with `rpm -qp`, refuses
 * one older than the installed package (rpm's own ordering, `rpm.vercmp`) unless
 * `rpm.allow_downgrade` (then `--oldpackage`), and installs with `rpm -U`. The same version again
 * is allowed (`--replacepkgs`): that is how an install cut by a power failure is finished.
 * `root` (tests; a device image being built) runs rpm with `--root`, its database inside.
 */
import type { DaemonConfig } from '../config/types.ts';
import type { InstallContext, InstallOutcome, Installer } from './installer.ts';
import { onPath, run, runOrThrow } from './tools.ts';

export interface RpmInstallerOptions {
  /** Install into this root (rpm --root); default the running system. */
  root?: string;
}

/** `epoch:version-release`, the epoch left out when the package has none (as rpm prints it). */
const EVR = '%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}';

/** Name and epoch:version-release of an .rpm file. */
export async function rpmFields(file: string, signal?: AbortSignal): Promise<{ name: string; evr: string }> {
  const { stdout } = await runOrThrow('rpm -qp', 'rpm', ['-qp', '--nosignature', '--nodigest', '--qf', `%{NAME}\\n${EVR}\\n`, '--', file], { signal });
  const [name, evr] = stdout.split('\n');
  if (!name || !evr) throw new Error('not an RPM package: rpm found no name or version');
  return { name, evr };
}

/** rpm's comparison of two epoch:version-release strings: -1, 0 or 1. */
export async function rpmCompare(a: string, b: string, signal?: AbortSignal): Promise<number> {
  const quote = (value: string) => `"${value.replace(/[^0-9A-Za-z.:~^+_-]/g, '')}"`;
  const { stdout } = await runOrThrow('rpm --eval', 'rpm', ['--eval', `%{lua: print(rpm.vercmp(${quote(a)}, ${quote(b)}))}`], { signal });
  return Number(stdout.trim());
}

export function createRpmInstaller(options: RpmInstallerOptions = {}): Installer {
  const rootArgs = options.root ? ['--root', options.root] : [];

  /** The installed epoch:version-release of `name`, or null. */
  async function installedEvr(name: string, signal: AbortSignal): Promise<string | null> {
    const result = await run('rpm', [...rootArgs, '-q', '--qf', `${EVR}\\n`, '--', name], { signal });
    if (result.code !== 0) return null;
    const versions = result.stdout.split('\n').filter(Boolean);
    return versions.length ? versions[versions.length - 1] : null;
  }

  return {
    name: 'rpm',
    unavailable(_config: DaemonConfig) {
      return onPath('rpm') ? null : "rpm needs rpm on the device's PATH";
    },
    async install({ file, metadata, log, signal }: InstallContext): Promise<InstallOutcome> {
      const allowDowngrade = metadata.rpm?.allow_downgrade ?? false;
      const pkg = await rpmFields(file, signal);
      const installed = await installedEvr(pkg.name, signal);
      const downgrade = installed !== null && (await rpmCompare(pkg.evr, installed, signal)) < 0;
      if (downgrade && !allowDowngrade) {
        throw new Error(`${pkg.name} ${pkg.evr} is older than the installed ${installed}; set custom_metadata.canopy.rpm.allow_downgrade to install it`);
      }
      log.info('rpm installing', { package: pkg.name, version: pkg.evr, installed, downgrade });
      // The daemon verified the binary's hash and signatures already; rpm checks its own digests.
      await runOrThrow('rpm -U', 'rpm', [...rootArgs, '-U', '--replacepkgs', ...(downgrade ? ['--oldpackage'] : []), '--', file], { signal });
      log.info('rpm installed', { package: pkg.name, version: pkg.evr });
      return { rebootRequired: metadata.reboot_required };
    },
  };
}

export const rpmInstaller = createRpmInstaller();
