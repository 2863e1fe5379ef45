/** The canopy command tree: global options, `config`, and one command group per resource of the table. */
import { Command, Option } from 'commander';
import { buildConfigCommand } from './commands/config-command';
import { buildResourceCommand } from './commands/build-resource-commands';
import { RESOURCES } from './commands/resource-table';
import { buildTufCommand } from './commands/tuf/tuf-command';
import type { RunContext } from './run-context';

/** Global options and the environment variables they fall back to (read in config/settings.ts). */
export const GLOBAL_OPTIONS: { flags: string; description: string; env?: string }[] = [
  { flags: '--api-key <key>', description: 'API key (Authorization: Bearer).', env: 'CANOPY_API_KEY' },
  { flags: '--base-url <url>', description: 'Admin API URL (default http://localhost:4000).', env: 'CANOPY_BASE_URL' },
  { flags: '--profile <name>', description: 'Profile of ~/.config/canopy to use (default: the current profile).', env: 'CANOPY_PROFILE' },
  { flags: '--ca-path <file>', description: 'PEM file of a CA to trust for HTTPS.', env: 'CANOPY_CA_PATH' },
];

export function buildProgram(context: RunContext): Command {
  const program = new Command('canopy')
    .description('Command-line tool for the Canopy admin API: resources, uploads, signing, certificates and profiles.')
    // Only -V: resources have a --version field (artifact versions, releases).
    .version('0.1.0', '-V', 'Print the canopy version.')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', '\nSettings come from flags, then environment variables, then the profile.\n\nExample:\n  $ CANOPY_API_KEY=cnpy_... canopy products list --output table\n');
  for (const option of GLOBAL_OPTIONS) program.addOption(new Option(option.flags, `${option.description} Env: ${option.env}.`));
  program.addOption(new Option('--output <format>', 'json (default) or table.').choices(['json', 'table']).default('json'));
  program.addCommand(buildConfigCommand(context));
  for (const resource of RESOURCES) program.addCommand(buildResourceCommand(resource, context));
  program.addCommand(buildTufCommand(context));
  return program;
}
