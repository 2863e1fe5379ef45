/** Where canopy keeps its files: CANOPY_CONFIG_DIR (tests), else $XDG_CONFIG_HOME/canopy, else ~/.config/canopy. */
import os from 'node:os';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

export function configDir(env: Env): string {
  if (env.CANOPY_CONFIG_DIR) return env.CANOPY_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'canopy');
}

export const configFile = (dir: string) => path.join(dir, 'config.json');
export const credentialsFile = (dir: string) => path.join(dir, 'credentials.json');
export const signingKeysDir = (dir: string) => path.join(dir, 'signing-keys');
