/**
 * The connection settings of one run. Precedence, per setting: command-line flag, then
 * environment variable, then the selected profile, then the built-in default.
 */
import { ConfigStore } from './store';
import type { Env } from './paths';

export const DEFAULT_BASE_URL = 'http://localhost:4000';

export interface GlobalFlags {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
  caPath?: string;
}

export interface Settings {
  profile: string;
  apiKey?: string;
  baseUrl: string;
  caPath?: string;
  /** Where each value came from, for `canopy config get` and error messages. */
  sources: Record<'apiKey' | 'baseUrl' | 'caPath' | 'profile', 'flag' | 'env' | 'profile' | 'default' | 'unset'>;
}

type Source = Settings['sources'][keyof Settings['sources']];

function pick(flag: string | undefined, env: string | undefined, profile: string | undefined): [string | undefined, Source] {
  if (flag) return [flag, 'flag'];
  if (env) return [env, 'env'];
  if (profile) return [profile, 'profile'];
  return [undefined, 'unset'];
}

export function selectedProfile(flags: GlobalFlags, env: Env, store: ConfigStore): [string, Source] {
  if (flags.profile) return [flags.profile, 'flag'];
  if (env.CANOPY_PROFILE) return [env.CANOPY_PROFILE, 'env'];
  const current = store.readConfig().current_profile;
  return current ? [current, 'profile'] : ['default', 'default'];
}

export function resolveSettings(flags: GlobalFlags, env: Env, store: ConfigStore): Settings {
  const [profile, profileSource] = selectedProfile(flags, env, store);
  const stored = store.profile(profile);
  const [apiKey, apiKeySource] = pick(flags.apiKey, env.CANOPY_API_KEY, stored.api_key);
  const [baseUrl, baseUrlSource] = pick(flags.baseUrl, env.CANOPY_BASE_URL, stored.base_url);
  const [caPath, caPathSource] = pick(flags.caPath, env.CANOPY_CA_PATH, stored.ca_path);
  return {
    profile,
    apiKey,
    baseUrl: baseUrl ?? DEFAULT_BASE_URL,
    caPath,
    sources: { profile: profileSource, apiKey: apiKeySource, baseUrl: baseUrl ? baseUrlSource : 'default', caPath: caPathSource },
  };
}
