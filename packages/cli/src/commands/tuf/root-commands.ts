/** `canopy tuf root create|sign|commit|propose|sign-proposal`: the offline root of trust. */
import { Command } from 'commander';
import { Key, Metadata, MetadataKind } from '@tufjs/models';
import { buildRoot, signWith } from '@canopy/sdk/tuf';
import { CanopyApiError } from '@canopy/sdk';
import { UsageError } from '../../errors';
import type { RunContext } from '../../run-context';
import { collect, keyFileOrNew, readJsonFile, readKeyFile, writeJsonFile } from './key-files';

type TufJson = Parameters<typeof Metadata.fromJSON>[1];
type OnlineKey = { role: 'snapshot' | 'timestamp'; keyid: string; key: TufJson };

const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer`);
  return n;
};

async function trustedRootVersion(context: RunContext, options: Record<string, unknown>): Promise<number> {
  try {
    const root = await context.client(options).request<{ signed: { version: number } }>('GET', '/tuf/metadata/root.json');
    return root.signed.version;
  } catch (error) {
    if (error instanceof CanopyApiError && error.status === 404) return 0;
    throw error;
  }
}

export function buildRootCommand(context: RunContext): Command {
  const root = new Command('root').description('The root of trust: which keys sign root, targets, snapshot and timestamp, and how many must.').addHelpText('after', '\nExample:\n  $ canopy tuf root sign root.json --key keys/root-1.pem\n');

  root
    .command('create')
    .description("Write an unsigned root.json naming local root and targets keys (generated into their files when absent) and the server's newest online keys.")
    .requiredOption('--out <file>', 'Where to write root.json.')
    .requiredOption('--root-key <file>', 'A root key file (repeat for several).', collect)
    .option('--root-threshold <n>', 'Root signatures needed.', positive('--root-threshold'), 1)
    .requiredOption('--targets-key <file>', 'A targets key file (repeat for several).', collect)
    .option('--targets-threshold <n>', 'Targets signatures needed.', positive('--targets-threshold'), 1)
    .option('--expires-days <n>', 'Days until the root expires.', positive('--expires-days'), 365)
    .addHelpText('after', '\nExample:\n  $ canopy tuf root create --out root.json --root-key keys/root-1.pem --targets-key keys/targets.pem\n')
    .action(async (options, command: Command) => {
      const globals = command.optsWithGlobals();
      const online = await context.client(globals).request<{ data: OnlineKey[] }>('GET', '/tuf/online_keys');
      const newest = (role: 'snapshot' | 'timestamp') => {
        const found = online.data.find((key) => key.role === role);
        if (!found) throw new UsageError('the server has no online keys yet: run `canopy tuf online-keys create` first');
        return Key.fromJSON(found.keyid, found.key as never);
      };
      const version = (await trustedRootVersion(context, globals)) + 1;
      const rootKeys = (options.rootKey as string[]).map(keyFileOrNew);
      const targetsKeys = (options.targetsKey as string[]).map(keyFileOrNew);
      if (options.rootThreshold > rootKeys.length) throw new UsageError('--root-threshold is more than the root keys given');
      const meta = buildRoot({
        version,
        expiresInDays: options.expiresDays,
        root: { keys: rootKeys.map((k) => k.key), threshold: options.rootThreshold },
        targets: { keys: targetsKeys.map((k) => k.key), threshold: options.targetsThreshold },
        snapshot: { keys: [newest('snapshot')], threshold: 1 },
        timestamp: { keys: [newest('timestamp')], threshold: 1 },
      });
      writeJsonFile(options.out, meta.toJSON());
      context.print({ path: options.out, version, root_keyids: rootKeys.map((k) => k.key.keyID), targets_keyids: targetsKeys.map((k) => k.key.keyID) }, globals);
    });

  root
    .command('sign')
    .description('Add signatures of local root keys to a root.json (the previous root\'s keys too, for a rotation).')
    .argument('<file>', 'The root.json to sign in place.')
    .requiredOption('--key <file>', 'A root key file (repeat for several).', collect)
    .addHelpText('after', '\nExample:\n  $ canopy tuf root sign root.json --key keys/root-1.pem\n')
    .action((file: string, options, command: Command) => {
      const meta = Metadata.fromJSON(MetadataKind.Root, readJsonFile(file) as TufJson);
      signWith(meta, (options.key as string[]).map(readKeyFile));
      writeJsonFile(file, meta.toJSON());
      context.print({ path: file, version: meta.signed.version, signatures: Object.keys(meta.signatures) }, command.optsWithGlobals());
    });

  root
    .command('commit')
    .description('Make a fully signed root.json trusted (PUT /tuf/root), or commit a proposal once its thresholds are met.')
    .argument('[file]', 'A signed root.json.')
    .option('--proposal <version>', 'Commit the proposal of this version instead.', positive('--proposal'))
    .addHelpText('after', '\nExample:\n  $ canopy tuf root commit root.json\n  $ canopy tuf root commit --proposal 2\n')
    .action(async (file: string | undefined, options, command: Command) => {
      const globals = command.optsWithGlobals();
      if ((file === undefined) === (options.proposal === undefined)) throw new UsageError('give a root.json file or --proposal VERSION');
      const client = context.client(globals);
      const answer = file ? await client.request('PUT', '/tuf/root', { body: { root: readJsonFile(file) } }) : await client.request('POST', `/tuf/root_proposals/${options.proposal}/commit`);
      context.print(answer, globals);
    });

  root
    .command('propose')
    .description('Upload the next root.json as a proposal, to collect signatures from other key holders.')
    .argument('<file>', 'The root.json (signed by some keys, or none).')
    .addHelpText('after', '\nExample:\n  $ canopy tuf root propose root-2.json\n')
    .action(async (file: string, _options, command: Command) => {
      const globals = command.optsWithGlobals();
      context.print(await context.client(globals).request('POST', '/tuf/root_proposals', { body: { root: readJsonFile(file) } }), globals);
    });

  root
    .command('sign-proposal')
    .description('Sign a proposed root with local root keys and upload the signatures (each key holder runs this).')
    .requiredOption('--proposal <version>', 'The proposed version.', positive('--proposal'))
    .addHelpText('after', '\nExample:\n  $ canopy tuf root sign-proposal --proposal 2 --key keys/root-2.pem\n')
    .requiredOption('--key <file>', 'A root key file (repeat for several).', collect)
    .action(async (options, command: Command) => {
      const globals = command.optsWithGlobals();
      const client = context.client(globals);
      const proposal = await client.request<{ data: { signed: TufJson } }>('GET', `/tuf/root_proposals/${options.proposal}`);
      const meta = Metadata.fromJSON(MetadataKind.Root, { signed: proposal.data.signed, signatures: [] } as TufJson);
      signWith(meta, (options.key as string[]).map(readKeyFile));
      const signatures = Object.values(meta.signatures).map((s) => ({ keyid: s.keyID, sig: s.sig }));
      context.print(await client.request('PUT', `/tuf/root_proposals/${options.proposal}/signatures`, { body: { signatures } }), globals);
    });

  return root;
}
