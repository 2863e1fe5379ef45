/**
 * The simulator's installers: the same names and the same interface as the daemon's, each
 * writing into its virtual device's own directory (`<device dir>/root` stands for `/`), so
 * thousands of devices can install the same release in one process without touching the host.
 * `file` is the daemon's own atomic write; the others write the binary where the device would
 * keep it (`/run/script-input`; `/slots/<slot>` for the slot installers avocado-ab, rauc and
 * swupdate, whose trial boot confirms at once; `<tar.path>.tar`; `/var/cache/canopy/<artifact>.deb` or `.rpm`).
 *
 * A fleet can also be given faulty devices (`InstallFailures`): on them every installer fails
 * the install of the chosen artifact versions, as a release that breaks on one hardware
 * revision would, so the daemon reports `failed` and keeps running what it ran (the rollout
 * health gate's test, packages/daemon/test/rollouts-end-to-end.test.ts). Or devices that install
 * a release and then fail its soak (`SoakFailures`): their health check passes at first and
 * fails later (packages/daemon/test/soak-end-to-end.test.ts).
 */
import path from 'node:path';
import { writeFileAtomically } from '../installers/file.ts';
import { createInstallerRegistry, type InstallContext, type Installer, type InstallerRegistry } from '../installers/installer.ts';
import type { ManifestEntry } from '@canopy/sdk/device';

export interface InstallFailures {
  /** The faulty share of the fleet, in [0, 1]: that many devices (rounded down), spread evenly. */
  share: number;
  /** Artifact versions whose install fails on faulty devices; absent: every version. */
  versions?: readonly string[];
}

/**
 * Whether device `index` (0-based) of a fleet is faulty: the devices where
 * floor((index + 1) * share) steps up, so any run of devices holds the share (0.3: three of each
 * ten), whatever order they check in.
 */
export function isFaulty(index: number, share: number): boolean {
  return Math.floor((index + 1) * share) > Math.floor(index * share);
}

/**
 * What fails on device `index` of a fleet given `failures`: an entry whose install fails there,
 * or undefined when the device is sound.
 */
export function failuresOfDevice(failures: InstallFailures | undefined, index: number): ((entry: ManifestEntry) => boolean) | undefined {
  if (!failures || !isFaulty(index, failures.share)) return undefined;
  const versions = failures.versions;
  return (entry) => !versions || versions.includes(entry.artifact_version.version);
}

export interface SoakFailures {
  /** The faulty share of the fleet, in [0, 1], spread as isFaulty. */
  share: number;
  /** Release versions whose soak fails on faulty devices; absent: every version. */
  versions?: readonly string[];
  /** Health checks that pass before they start failing; 1 by default (one healthy report first). */
  passingChecks?: number;
}

/**
 * The health check outcome of device `index` given `failures`: a function of the running release
 * version answering true when this check fails, or undefined when the device is sound.
 */
export function soakFailureOfDevice(failures: SoakFailures | undefined, index: number): ((version: string | null) => boolean) | undefined {
  if (!failures || !isFaulty(index, failures.share)) return undefined;
  const passing = new Map<string | null, number>();
  return (version) => {
    if (failures.versions && (version === null || !failures.versions.includes(version))) return false;
    const done = passing.get(version) ?? 0;
    passing.set(version, done + 1);
    return done >= (failures.passingChecks ?? 1);
  };
}

/** A registry whose installers fail, before writing anything, the installs `fails` picks. */
function failing(registry: InstallerRegistry, fails: (entry: ManifestEntry) => boolean): InstallerRegistry {
  return createInstallerRegistry(
    [...registry.values()].map((installer): Installer => ({
      ...installer,
      async install(context) {
        const { artifact, artifact_version } = context.entry;
        if (fails(context.entry)) throw new Error(`simulated install failure: ${artifact.name} ${artifact_version.version} does not install on this device`);
        return installer.install(context);
      },
    })),
  );
}

/** Installers of the virtual device in `deviceDir`; `fails` picks the installs that fail there. */
export function virtualInstallers(deviceDir: string, fails?: (entry: ManifestEntry) => boolean): InstallerRegistry {
  const root = path.join(deviceDir, 'root');
  const inRoot = (absolute: string) => path.join(root, path.resolve('/', absolute));
  let activeSlot = 'a';
  const file: Installer = {
    name: 'file',
    deltaBases: (metadata) => (metadata.file ? [inRoot(metadata.file.path)] : []),
    async install({ file: source, metadata, signal }) {
      await writeFileAtomically(source, inRoot(metadata.file!.path), metadata.file!.mode, signal);
      return { rebootRequired: metadata.reboot_required };
    },
  };
  const script: Installer = {
    name: 'script',
    async install({ file: source, metadata, signal }) {
      await writeFileAtomically(source, inRoot('/run/script-input'), 0o644, signal);
      return { rebootRequired: metadata.reboot_required };
    },
  };
  const copyTo = (name: Installer['name'], where: (context: InstallContext) => string): Installer => ({
    name,
    async install(context) {
      await writeFileAtomically(context.file, inRoot(where(context)), 0o644, context.signal);
      return { rebootRequired: context.metadata.reboot_required };
    },
  });
  const tar = copyTo('tar', ({ metadata }) => `${metadata.tar!.path}.tar`);
  const deb = copyTo('deb', ({ entry }) => `/var/cache/canopy/${path.basename(entry.artifact.name)}.deb`);
  const rpm = copyTo('rpm', ({ entry }) => `/var/cache/canopy/${path.basename(entry.artifact.name)}.rpm`);
  const slotInstaller = (name: Installer['name']): Installer => ({
    name,
    deltaBases: () => [inRoot('/slots/a'), inRoot('/slots/b')],
    async install({ file: source, signal }) {
      const next = activeSlot === 'a' ? 'b' : 'a';
      await writeFileAtomically(source, inRoot(`/slots/${next}`), 0o644, signal);
      activeSlot = next;
      return { rebootRequired: true, slot: next };
    },
    async confirm({ slot }) {
      return { result: 'confirmed', slot };
    },
    currentSlot: async () => activeSlot,
  });
  const registry = createInstallerRegistry([file, script, slotInstaller('avocado-ab'), slotInstaller('rauc'), slotInstaller('swupdate'), tar, deb, rpm]);
  return fails ? failing(registry, fails) : registry;
}
