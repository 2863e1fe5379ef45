/**
 * canopy-daemon's entry: parses the command line and wires the parts together; the work is in
 * the folders beside it.
 *
 *   canopy-daemon [run] [--config FILE]     run the agent (the default command)
 *   canopy-daemon check-config [--config FILE]
 *   canopy-daemon status [--config FILE] [--json]
 *   canopy-daemon init DIR --cohort-prn PRN --signing-key-prn PRN [...]   (init/init.ts)
 *   canopy-daemon enrol [--token-file FILE] [--identifier ID] [--config FILE]   (enrol/enrol.ts)
 */
import { createDeviceClient } from '@canopy/sdk/device';
import { DEFAULT_CONFIG_PATH, loadConfig, readConfigFile } from './config/load.ts';
import { ConfigError } from './config/schema.ts';
import { runEnrol } from './enrol/enrol.ts';
import { runInit } from './init/init.ts';
import { builtInInstallers } from './installers/index.ts';
import { createLogger } from './log.ts';
import { readBootId, runRebootCommand } from './reboot.ts';
import { formatStatus, statusView } from './status.ts';
import { runTunnels } from './tunnels/index.ts';
import { createUpdateAgent } from './update/agent.ts';
import { tufVerifierOf } from './verify/tuf/from-config.ts';
import { createStateStore, readStateSync } from './update/state-store.ts';

const USAGE = `usage: canopy-daemon [run|check-config|status] [--config FILE] [--json]
       canopy-daemon init DIR --cohort-prn PRN --signing-key-prn PRN [options]
       canopy-daemon enrol [--token-file FILE] [--identifier ID] [--config FILE]
  run           check for updates and install them (default)
  check-config  validate the configuration file and the files it names, then exit
  status        print the release, bundle and slot the device runs, the last check and any install in progress
  init          write a trial setup into DIR, against a running server (init --help lists its options)
  enrol         get this device's certificate with a claim token (enrol --help lists its options)
  --config      configuration file (default ${DEFAULT_CONFIG_PATH})
`;

interface Args {
  command: 'run' | 'check-config' | 'status' | 'help';
  config: string;
  json: boolean;
}

function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { command: 'run', config: process.env.CANOPY_DAEMON_CONFIG ?? DEFAULT_CONFIG_PATH, json: false };
  let commandSeen = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--config' || arg === '-c') {
      const value = argv[++i];
      if (!value) return '--config needs a file';
      args.config = value;
    } else if (arg.startsWith('--config=')) args.config = arg.slice('--config='.length);
    else if (arg === '--json') args.json = true;
    else if (arg === '--help' || arg === '-h') args.command = 'help';
    else if (!commandSeen && (arg === 'run' || arg === 'check-config' || arg === 'status')) {
      args.command = arg;
      commandSeen = true;
    } else return `unknown argument ${arg}`;
  }
  return args;
}

function configProblem(error: unknown, file: string): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`canopy-daemon: ${file}: ${error.message}\n`);
    return 2;
  }
  throw error;
}

async function run(configFile: string): Promise<number> {
  let loaded;
  try {
    loaded = loadConfig(configFile);
  } catch (error) {
    return configProblem(error, configFile);
  }
  const { config, tls, trustedKeys } = loaded;
  const log = createLogger({ level: config.log_level });
  const client = createDeviceClient({ baseUrl: config.device_api.url, certPem: tls.certPem, keyPem: tls.keyPem, caPem: tls.caPem });
  const controller = new AbortController();
  const stop = (signal: string) => {
    log.info('stopping', { signal });
    controller.abort();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  const agent = createUpdateAgent({
    config,
    trustedKeys,
    client,
    installers: builtInInstallers(),
    store: createStateStore(config.state_dir, log),
    log,
    caPem: tls.caPem,
    reboot: async () => {
      await runRebootCommand(config.reboot_command);
      return false;
    },
    bootId: () => readBootId(),
    tuf: tufVerifierOf(config, tls),
  });
  log.info('started', { device_api: config.device_api.url, poll_interval: config.update_poll_interval, trusted_keys: trustedKeys.length, signature_threshold: config.signature_threshold });
  // The device side of tunnels runs beside the update loop, on the same client, until the same
  // signal; a failure there is logged and never stops updates. With remote_access_tunnels.enabled
  // false it starts only to take down tunnels a previous run left (no device API call), then stops.
  const tunnels = runTunnels({ config, client, log, signal: controller.signal }).catch((error: unknown) => {
    log.error('tunnels agent could not start', { error: error instanceof Error ? error.message : String(error) });
    return null;
  });
  const outcome = await agent.run(controller.signal);
  // Waiting for a reboot or stopping: the tunnels stop with the process either way.
  controller.abort();
  await (await tunnels)?.stop();
  client.close();
  log.info(outcome === 'stop' ? 'waiting for the reboot' : 'stopped');
  return 0;
}

export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'init') return runInit(argv.slice(1));
  if (argv[0] === 'enrol') return runEnrol(argv.slice(1));
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`canopy-daemon: ${args}\n${USAGE}`);
    return 64;
  }
  switch (args.command) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'check-config':
      try {
        const { config, trustedKeys } = loadConfig(args.config);
        process.stdout.write(`${args.config}: valid (${trustedKeys.length} trusted signing key${trustedKeys.length === 1 ? '' : 's'}, threshold ${config.signature_threshold})\n`);
        return 0;
      } catch (error) {
        return configProblem(error, args.config);
      }
    case 'status': {
      let stateDir: string;
      try {
        stateDir = readConfigFile(args.config).state_dir;
      } catch (error) {
        return configProblem(error, args.config);
      }
      const view = statusView(readStateSync(stateDir));
      process.stdout.write(args.json ? `${JSON.stringify(view, null, 2)}\n` : formatStatus(view));
      return 0;
    }
    case 'run':
      return run(args.config);
  }
}
