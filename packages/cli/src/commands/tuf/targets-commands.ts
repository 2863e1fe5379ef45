/**
 * `canopy tuf delegate add|revoke` (the top-level targets, signed with the offline targets key)
 * and `canopy tuf targets sign` (a product's delegated targets, signed with a release key).
 */
import { Command } from 'commander';
import { Key, Metadata, MetadataKind, type Targets } from '@tufjs/models';
import { buildTopTargets, signWith, withReleaseTargets, type ReleaseBinary } from '@canopy/sdk/tuf';
import { CanopyApiError, listAll, type CanopyClient } from '@canopy/sdk';
import { UsageError } from '../../errors';
import type { RunContext } from '../../run-context';
import { collect, readKeyFile } from './key-files';

type TufJson = Parameters<typeof Metadata.fromJSON>[1];
type Delegation = { product: string; keys: Key[]; threshold: number };

async function currentTargets(client: CanopyClient, role: string): Promise<Metadata<Targets> | null> {
  try {
    return Metadata.fromJSON(MetadataKind.Targets, await client.request<TufJson>('GET', `/tuf/metadata/${encodeURIComponent(role)}.json`));
  } catch (error) {
    if (error instanceof CanopyApiError && error.status === 404) return null;
    throw error;
  }
}

function delegationsOf(top: Metadata<Targets> | null): Delegation[] {
  const delegations = top?.signed.delegations;
  if (!delegations?.roles) return [];
  return Object.values(delegations.roles).map((role) => ({ product: role.name, keys: role.keyIDs.map((keyid) => delegations.keys[keyid]), threshold: role.threshold }));
}

async function publishTop(context: RunContext, globals: Record<string, unknown>, keyFiles: string[], change: (list: Delegation[]) => Delegation[]) {
  const client = context.client(globals);
  const current = await currentTargets(client, 'targets');
  const next = signWith(buildTopTargets((current?.signed.version ?? 0) + 1, change(delegationsOf(current))), keyFiles.map(readKeyFile));
  return client.request('PUT', '/tuf/metadata/targets', { body: { metadata: next.toJSON() } });
}

export function buildDelegateCommand(context: RunContext): Command {
  const delegate = new Command('delegate').description("Which release keys may sign a product's targets (the top-level targets, signed offline).").addHelpText('after', '\nExample:\n  $ canopy tuf delegate add --product gateway --release-key keys/release.pem --targets-key keys/targets.pem\n');
  delegate
    .command('add')
    .description("Delegate a product's targets to release keys (replaces the product's earlier keys).")
    .requiredOption('--product <name>', 'The product (the delegated role is named after it).')
    .requiredOption('--release-key <file>', 'A release key file whose public half is delegated (repeat for several).', collect)
    .option('--threshold <n>', 'Release signatures needed.', '1')
    .requiredOption('--targets-key <file>', 'The offline targets key file (repeat to meet its threshold).', collect)
    .addHelpText('after', '\nExample:\n  $ canopy tuf delegate add --product gateway --release-key keys/release.pem --targets-key keys/targets.pem\n')
    .action(async (options, command: Command) => {
      const keys = (options.releaseKey as string[]).map((file) => readKeyFile(file).key);
      const threshold = Number(options.threshold);
      if (!Number.isInteger(threshold) || threshold < 1 || threshold > keys.length) throw new UsageError('--threshold must be between 1 and the number of release keys');
      const globals = command.optsWithGlobals();
      context.print(await publishTop(context, globals, options.targetsKey, (list) => [...list.filter((d) => d.product !== options.product), { product: options.product, keys, threshold }]), globals);
    });
  delegate
    .command('revoke')
    .description("Stop trusting a release key for a product: new top-level targets without it (the product's role goes when no key is left).")
    .requiredOption('--product <name>', 'The product.')
    .requiredOption('--keyid <id>', 'The keyid of the release key to revoke.')
    .requiredOption('--targets-key <file>', 'The offline targets key file (repeat to meet its threshold).', collect)
    .addHelpText('after', '\nExample:\n  $ canopy tuf delegate revoke --product gateway --keyid 3f9c... --targets-key keys/targets.pem\n')
    .action(async (options, command: Command) => {
      const globals = command.optsWithGlobals();
      context.print(
        await publishTop(context, globals, options.targetsKey, (list) => {
          const found = list.find((d) => d.product === options.product && d.keys.some((key) => key.keyID === options.keyid));
          if (!found) throw new UsageError(`product ${options.product} has no delegated key ${options.keyid}`);
          const keys = found.keys.filter((key) => key.keyID !== options.keyid);
          const rest = list.filter((d) => d !== found);
          return keys.length === 0 ? rest : [...rest, { ...found, keys, threshold: Math.min(found.threshold, keys.length) }];
        }),
        globals,
      );
    });
  return delegate;
}

type Binary = { prn: string; hash: string | null; size: number | null; target: string; custom_metadata: Record<string, unknown> | null };

async function releaseBinaries(client: CanopyClient, releasePrn: string): Promise<ReleaseBinary[]> {
  const release = await client.request<{ release: { bundle_prn: string } }>('GET', `/releases/${releasePrn}`);
  const bundle = await client.request<{ bundle: { artifact_version_prns: string[] } }>('GET', `/bundles/${release.release.bundle_prn}`);
  const binaries: ReleaseBinary[] = [];
  for (const version of bundle.bundle.artifact_version_prns) {
    // Every page: a version may hold a binary per target, more than one page of them.
    const versionBinaries = await listAll<Binary>(client, '/binaries', { itemsKey: 'binaries', query: { search: `artifact_version_prn:'${version}'`, limit: 100 } });
    for (const binary of versionBinaries) {
      if (!binary.hash || binary.size === null) throw new UsageError(`binary ${binary.prn} is not hashed yet`);
      binaries.push({ name: binary.prn, sha256: binary.hash.toLowerCase(), length: binary.size, custom: { target: binary.target, artifact_version_prn: version, custom_metadata: binary.custom_metadata } });
    }
  }
  return binaries;
}

export function buildTargetsCommand(context: RunContext): Command {
  const targets = new Command('targets').description("A product's signed targets: the releases' binaries devices may install.").addHelpText('after', '\nExample:\n  $ canopy tuf targets sign --release prn:1:... --product gateway --key keys/release.pem\n');
  targets
    .command('sign')
    .description("List a release's binaries (hash, length, target, custom metadata) in its product's targets, sign with local release keys, upload.")
    .requiredOption('--release <prn>', 'The release.')
    .requiredOption('--product <name>', "The release's product (its delegated role).")
    .requiredOption('--key <file>', 'A release key file (repeat to meet the threshold).', collect)
    .addHelpText('after', '\nExample:\n  $ canopy tuf targets sign --release prn:1:...:release:... --product gateway --key keys/release.pem\n')
    .action(async (options, command: Command) => {
      const globals = command.optsWithGlobals();
      const client = context.client(globals);
      const binaries = await releaseBinaries(client, options.release);
      const next = signWith(withReleaseTargets(await currentTargets(client, options.product), options.product, options.release, binaries), (options.key as string[]).map(readKeyFile));
      context.print(await client.request('PUT', `/tuf/metadata/${encodeURIComponent(options.product)}`, { body: { metadata: next.toJSON() } }), globals);
    });
  return targets;
}
