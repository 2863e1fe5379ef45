/**
 * Profiles: settings in config.json, API keys apart in credentials.json (mode 0600) so the
 * settings file can be shared or committed without leaking keys.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configFile, credentialsFile } from './paths';

export interface ProfileSettings {
  base_url?: string;
  ca_path?: string;
}

export interface ConfigFile {
  current_profile?: string;
  profiles: Record<string, ProfileSettings>;
}

export interface CredentialsFile {
  profiles: Record<string, { api_key?: string }>;
}

export const DEFAULT_PROFILE = 'default';

function readJson<T>(file: string, empty: T): T {
  if (!fs.existsSync(file)) return empty;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Writes through a temporary file so a crash never leaves half a config; `mode` applies from the first byte. */
function writeJson(file: string, value: unknown, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  fs.chmodSync(temporary, mode);
  fs.renameSync(temporary, file);
}

export class ConfigStore {
  constructor(readonly dir: string) {}

  readConfig(): ConfigFile {
    const config = readJson<ConfigFile>(configFile(this.dir), { profiles: {} });
    config.profiles ??= {};
    return config;
  }

  readCredentials(): CredentialsFile {
    const credentials = readJson<CredentialsFile>(credentialsFile(this.dir), { profiles: {} });
    credentials.profiles ??= {};
    return credentials;
  }

  writeConfig(config: ConfigFile): void {
    writeJson(configFile(this.dir), config, 0o644);
  }

  writeCredentials(credentials: CredentialsFile): void {
    writeJson(credentialsFile(this.dir), credentials, 0o600);
  }

  currentProfile(): string {
    return this.readConfig().current_profile ?? DEFAULT_PROFILE;
  }

  profile(name: string): ProfileSettings & { api_key?: string } {
    return { ...this.readConfig().profiles[name], api_key: this.readCredentials().profiles[name]?.api_key };
  }
}
