/** Profiles, credentials file mode, and the precedence flag > env > profile. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir } from '../src/config/paths';
import { canopy } from './support/run-canopy';
import { temporaryConfigDir } from './support/server';

describe('config profiles', () => {
  it('set, get, list, use; keys in credentials.json mode 0600', async () => {
    const dir = temporaryConfigDir();
    const env = { CANOPY_CONFIG_DIR: dir };
    expect((await canopy(['config', 'set', 'base-url', 'http://default.example'], env)).code).toBe(0);
    expect((await canopy(['--profile', 'staging', 'config', 'set', 'base-url', 'http://staging.example'], env)).code).toBe(0);
    expect((await canopy(['--profile', 'staging', 'config', 'set', 'api-key', 'cnpy_staging_key'], env)).code).toBe(0);

    const credentials = path.join(dir, 'credentials.json');
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(credentials, 'utf8')).profiles.staging.api_key).toBe('cnpy_staging_key');
    expect(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).not.toContain('cnpy_staging_key');

    expect((await canopy(['config', 'get', 'base-url'], env)).json).toMatchObject({ profile: 'default', value: 'http://default.example', source: 'profile' });
    expect((await canopy(['config', 'use', 'staging'], env)).code).toBe(0);
    expect((await canopy(['config', 'get', 'base-url'], env)).json).toMatchObject({ profile: 'staging', value: 'http://staging.example' });

    const list = await canopy(['config', 'list'], env);
    expect(list.json.profiles).toEqual([
      expect.objectContaining({ name: 'default', current: false }),
      expect.objectContaining({ name: 'staging', current: true, api_key: 'cnpy_sta…' }),
    ]);
    expect((await canopy(['config', 'use', 'nope'], env)).code).toBe(2);
    expect((await canopy(['config', 'set', 'colour', 'blue'], env)).code).toBe(2);
  });

  it('precedence: flag > env > profile > default, and CANOPY_PROFILE selects the profile', async () => {
    const dir = temporaryConfigDir();
    await canopy(['config', 'set', 'base-url', 'http://profile.example'], { CANOPY_CONFIG_DIR: dir });
    await canopy(['--profile', 'other', 'config', 'set', 'base-url', 'http://other.example'], { CANOPY_CONFIG_DIR: dir });
    const get = (args: string[], env: Record<string, string>) => canopy([...args, 'config', 'get', 'base-url'], { CANOPY_CONFIG_DIR: dir, ...env }).then((r) => r.json);

    expect(await get([], {})).toMatchObject({ value: 'http://profile.example', source: 'profile' });
    expect(await get([], { CANOPY_BASE_URL: 'http://env.example' })).toMatchObject({ value: 'http://env.example', source: 'env' });
    expect(await get(['--base-url', 'http://flag.example'], { CANOPY_BASE_URL: 'http://env.example' })).toMatchObject({ value: 'http://flag.example', source: 'flag' });
    expect(await get([], { CANOPY_PROFILE: 'other' })).toMatchObject({ profile: 'other', value: 'http://other.example' });
    expect(await get(['--profile', 'default'], { CANOPY_PROFILE: 'other' })).toMatchObject({ profile: 'default', value: 'http://profile.example' });
    expect(await canopy(['config', 'get', 'base-url'], { CANOPY_CONFIG_DIR: temporaryConfigDir() }).then((r) => r.json)).toMatchObject({ value: 'http://localhost:4000', source: 'default' });
  });

  it('config dir: CANOPY_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configDir({ CANOPY_CONFIG_DIR: '/x', XDG_CONFIG_HOME: '/y' })).toBe('/x');
    expect(configDir({ XDG_CONFIG_HOME: '/y', HOME: '/h' })).toBe('/y/canopy');
    expect(configDir({ HOME: '/h' })).toBe('/h/.config/canopy');
  });
});
