/**
 * The installers the real daemon registers; the simulator registers its own installers per
 * virtual device.
 */
import { avocadoAbInstaller } from './avocado-ab.ts';
import { debInstaller } from './deb.ts';
import { fileInstaller } from './file.ts';
import { raucInstaller } from './rauc.ts';
import { rpmInstaller } from './rpm.ts';
import { createInstallerRegistry, type InstallerRegistry } from './installer.ts';
import { scriptInstaller } from './script.ts';
import { swupdateInstaller } from './swupdate.ts';
import { tarInstaller } from './tar.ts';

export function builtInInstallers(): InstallerRegistry {
  return createInstallerRegistry([fileInstaller, scriptInstaller, avocadoAbInstaller, tarInstaller, debInstaller, rpmInstaller, raucInstaller, swupdateInstaller]);
}
