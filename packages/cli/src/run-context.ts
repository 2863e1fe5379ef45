/** What every command needs from the run: settings (flag > env > profile), a client, the config store, output. */
import { createCanopyClient, type CanopyClient } from '@canopy/sdk';
import { configDir } from './config/paths';
import { resolveSettings, type GlobalFlags, type Settings } from './config/settings';
import { ConfigStore } from './config/store';
import { UsageError } from './errors';
import type { CliIo } from './io';
import { render, type OutputFormat } from './output';

export interface RunContext {
  io: CliIo;
  store: ConfigStore;
  settings(options: Record<string, unknown>): Settings;
  client(options: Record<string, unknown>, requireKey?: boolean): CanopyClient;
  print(answer: unknown, options: Record<string, unknown>): void;
}

const flagsOf = (options: Record<string, unknown>): GlobalFlags => ({
  apiKey: options.apiKey as string | undefined,
  baseUrl: options.baseUrl as string | undefined,
  profile: options.profile as string | undefined,
  caPath: options.caPath as string | undefined,
});

export function createRunContext(io: CliIo): RunContext {
  const store = new ConfigStore(configDir(io.env));
  const settings = (options: Record<string, unknown>) => resolveSettings(flagsOf(options), io.env, store);
  return {
    io,
    store,
    settings,
    client(options, requireKey = true) {
      const s = settings(options);
      if (!s.apiKey && requireKey) throw new UsageError(`no API key: pass --api-key, set CANOPY_API_KEY, or run: canopy config set api-key <key> (profile "${s.profile}")`);
      return createCanopyClient({ baseUrl: s.baseUrl, apiKey: s.apiKey, caPath: s.caPath });
    },
    print(answer, options) {
      const format = ((options.output as string | undefined) ?? 'json') as OutputFormat;
      io.stdout.write(render(answer, format));
    },
  };
}
