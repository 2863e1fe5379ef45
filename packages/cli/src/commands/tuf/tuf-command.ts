/** `canopy tuf`: the offline steps of an organization's TUF repository (keys stay local). */
import { Command } from 'commander';
import type { RunContext } from '../../run-context';
import { keyFileOrNew } from './key-files';
import { buildRootCommand } from './root-commands';
import { buildDelegateCommand, buildTargetsCommand } from './targets-commands';

export function buildTufCommand(context: RunContext): Command {
  const tuf = new Command('tuf').description('TUF signed update metadata: roots, delegations and targets signed offline; online keys held by the server.').addHelpText('after', '\nExample:\n  $ canopy tuf root create --out root.json --root-key keys/root-1.pem --targets-key keys/targets.pem\n');
  const key = new Command('key').description('Local TUF keys.').addHelpText('after', '\nExample:\n  $ canopy tuf key generate --out keys/release.pem\n');
  key
    .command('generate')
    .description('Generate an Ed25519 key into a file (mode 0600) and print its keyid.')
    .requiredOption('--out <file>', 'The key file to create.')
    .addHelpText('after', '\nExample:\n  $ canopy tuf key generate --out keys/release.pem\n')
    .action((options, command: Command) => {
      const pair = keyFileOrNew(options.out);
      context.print({ path: options.out, keyid: pair.key.keyID, key: pair.key.toJSON() }, command.optsWithGlobals());
    });
  const online = new Command('online-keys').description("The server's snapshot and timestamp keys.").addHelpText('after', '\nExample:\n  $ canopy tuf online-keys create\n');
  online
    .command('create')
    .description('Have the server generate new online keys (name them in the next root to rotate).')
    .addHelpText('after', '\nExample:\n  $ canopy tuf online-keys create\n')
    .action(async (_options, command: Command) => {
      const globals = command.optsWithGlobals();
      context.print(await context.client(globals).request('POST', '/tuf/online_keys'), globals);
    });
  online
    .command('list')
    .description('The online keys and whether the trusted root names them.')
    .addHelpText('after', '\nExample:\n  $ canopy tuf online-keys list\n')
    .action(async (_options, command: Command) => {
      const globals = command.optsWithGlobals();
      context.print(await context.client(globals).request('GET', '/tuf/online_keys'), globals);
    });
  tuf
    .command('posture')
    .description('How many devices trust each root version, and which are behind.')
    .addHelpText('after', '\nExample:\n  $ canopy tuf posture\n')
    .action(async (_options, command: Command) => {
      const globals = command.optsWithGlobals();
      context.print(await context.client(globals).request('GET', '/tuf/posture'), globals);
    });
  for (const sub of [key, online, buildRootCommand(context), buildDelegateCommand(context), buildTargetsCommand(context)]) tuf.addCommand(sub);
  return tuf;
}
