/** `canopy config`: profiles (base URL, CA path) in config.json and their API keys in credentials.json (0600). */
import { Command } from 'commander';
import { UsageError } from '../errors';
import type { RunContext } from '../run-context';

const KEYS = ['api-key', 'base-url', 'ca-path'] as const;
type Key = (typeof KEYS)[number];

function checkKey(key: string): Key {
  if (!KEYS.includes(key as Key)) throw new UsageError(`unknown setting "${key}"; settings are ${KEYS.join(', ')}`);
  return key as Key;
}

const mask = (key: string | undefined) => (key ? `${key.slice(0, 8)}…` : null);

export function buildConfigCommand(context: RunContext): Command {
  const { store } = context;
  const profileOf = (command: Command) => context.settings(command.optsWithGlobals()).profile;
  const config = new Command('config')
    .description('Manage profiles: base URL and CA path in config.json, API keys in credentials.json (mode 0600). The profile is --profile, CANOPY_PROFILE, or the one chosen with `config use`.')
    .addHelpText('after', '\nExample:\n  $ canopy --profile staging config set base-url https://canopy.staging.example.com\n  $ canopy --profile staging config set api-key cnpy_...\n  $ canopy config use staging\n');

  config
    .command('set')
    .description('Set a setting of the selected profile.')
    .argument('<setting>', `One of ${KEYS.join(', ')}.`)
    .argument('<value>', 'The value.')
    .addHelpText('after', '\nExample:\n  $ canopy config set base-url http://localhost:4000\n')
    .action((setting: string, value: string, _options: unknown, command: Command) => {
      const key = checkKey(setting);
      const profile = profileOf(command);
      if (key === 'api-key') {
        const credentials = store.readCredentials();
        credentials.profiles[profile] = { ...credentials.profiles[profile], api_key: value };
        store.writeCredentials(credentials);
      } else {
        const file = store.readConfig();
        file.profiles[profile] = { ...file.profiles[profile], [key === 'base-url' ? 'base_url' : 'ca_path']: value };
        store.writeConfig(file);
      }
      if (!store.readConfig().profiles[profile]) {
        const file = store.readConfig();
        file.profiles[profile] = {};
        store.writeConfig(file);
      }
      context.print({ profile, setting: key, value: key === 'api-key' ? mask(value) : value }, command.optsWithGlobals());
    });

  config
    .command('get')
    .description('Show the effective value of a setting (after flag > env > profile) and where it came from.')
    .argument('<setting>', `One of ${KEYS.join(', ')}.`)
    .addHelpText('after', '\nExample:\n  $ canopy config get base-url\n')
    .action((setting: string, _options: unknown, command: Command) => {
      const key = checkKey(setting);
      const s = context.settings(command.optsWithGlobals());
      const field = key === 'api-key' ? 'apiKey' : key === 'base-url' ? 'baseUrl' : 'caPath';
      const value = s[field];
      context.print({ profile: s.profile, setting: key, value: key === 'api-key' ? mask(value) : (value ?? null), source: s.sources[field] }, command.optsWithGlobals());
    });

  config
    .command('list')
    .description('List profiles (API keys masked) and the current one.')
    .addHelpText('after', '\nExample:\n  $ canopy config list --output table\n')
    .action((_options: unknown, command: Command) => {
      const file = store.readConfig();
      const credentials = store.readCredentials();
      const names = [...new Set([...Object.keys(file.profiles), ...Object.keys(credentials.profiles)])].sort();
      const current = file.current_profile ?? 'default';
      const profiles = names.map((name) => ({ name, current: name === current, base_url: file.profiles[name]?.base_url ?? null, ca_path: file.profiles[name]?.ca_path ?? null, api_key: mask(credentials.profiles[name]?.api_key) }));
      context.print({ profiles }, command.optsWithGlobals());
    });

  config
    .command('use')
    .description('Make a profile the current one (used when neither --profile nor CANOPY_PROFILE is given).')
    .argument('<profile>', 'Profile name.')
    .addHelpText('after', '\nExample:\n  $ canopy config use production\n')
    .action((profile: string, _options: unknown, command: Command) => {
      const file = store.readConfig();
      if (!file.profiles[profile] && !store.readCredentials().profiles[profile]) throw new UsageError(`no profile "${profile}"; create it with: canopy --profile ${profile} config set base-url <url>`);
      file.current_profile = profile;
      store.writeConfig(file);
      context.print({ current_profile: profile }, command.optsWithGlobals());
    });
  return config;
}
