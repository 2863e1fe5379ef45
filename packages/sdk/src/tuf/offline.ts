/**
 * The offline steps of an organization's TUF repository, as the CLI runs them and the tests
 * drive them: build a root, delegate a product to release keys, list a release's binaries as
 * targets. Everything is @tufjs/models; signing is keys.ts.
 */
import { Metadata, Root, TargetFile, Targets, type Key } from '@tufjs/models';
import { tufExpiry } from './expiry';
import { tufSigner, type TufKeyPair } from './keys';

const DAY = 24 * 3600;
type RoleKeys = { keys: Key[]; threshold: number };

export interface RootInput {
  version: number;
  expiresInDays?: number;
  root: RoleKeys;
  targets: RoleKeys;
  snapshot: RoleKeys;
  timestamp: RoleKeys;
}

export function buildRoot(input: RootInput, now = new Date()): Metadata<Root> {
  const names = ['root', 'targets', 'snapshot', 'timestamp'] as const;
  const json = {
    _type: 'root',
    spec_version: '1.0.31',
    version: input.version,
    expires: tufExpiry(now, (input.expiresInDays ?? 365) * DAY),
    consistent_snapshot: false,
    keys: Object.fromEntries(names.flatMap((name) => input[name].keys.map((key) => [key.keyID, key.toJSON()]))),
    roles: Object.fromEntries(names.map((name) => [name, { keyids: input[name].keys.map((key) => key.keyID), threshold: input[name].threshold }])),
  };
  return new Metadata(Root.fromJSON(json as Parameters<typeof Root.fromJSON>[0]));
}

/** Adds (append) signatures of each pair to `meta`. */
export function signWith<T extends Metadata<any>>(meta: T, pairs: TufKeyPair[]): T {
  for (const pair of pairs) meta.sign(tufSigner(pair), true);
  return meta;
}

/** The path of a release's binary among the targets: bound to its product and release. */
export function targetPath(product: string, releasePrn: string, binaryName: string): string {
  return `${product}/${releasePrn}/${binaryName}`;
}

/** The top-level targets metadata delegating each product (role name = product name) to its keys. */
export function buildTopTargets(version: number, delegations: { product: string; keys: Key[]; threshold: number }[], now = new Date(), expiresInDays = 365): Metadata<Targets> {
  const json: Record<string, unknown> = {
    _type: 'targets',
    spec_version: '1.0.31',
    version,
    expires: tufExpiry(now, expiresInDays * DAY),
    targets: {},
    delegations: {
      keys: Object.fromEntries(delegations.flatMap((d) => d.keys.map((key) => [key.keyID, key.toJSON()]))),
      roles: delegations.map((d) => ({ name: d.product, keyids: d.keys.map((key) => key.keyID), threshold: d.threshold, terminating: true, paths: [`${d.product}/*/*`] })),
    },
  };
  return new Metadata(Targets.fromJSON(json as Parameters<typeof Targets.fromJSON>[0]));
}

export interface ReleaseBinary {
  name: string;
  sha256: string;
  length: number;
  custom?: Record<string, unknown>;
}

/** A product's delegated targets: what it listed before, plus (or replacing) one release's binaries. */
export function withReleaseTargets(previous: Metadata<Targets> | null, product: string, releasePrn: string, binaries: ReleaseBinary[], now = new Date(), expiresInDays = 365): Metadata<Targets> {
  const targets = new Targets({ version: (previous?.signed.version ?? 0) + 1, specVersion: '1.0.31', expires: tufExpiry(now, expiresInDays * DAY) });
  for (const [path, file] of Object.entries(previous?.signed.targets ?? {})) if (!path.startsWith(`${product}/${releasePrn}/`)) targets.targets[path] = file;
  for (const binary of binaries) {
    const path = targetPath(product, releasePrn, binary.name);
    targets.addTarget(new TargetFile({ path, length: binary.length, hashes: { sha256: binary.sha256 }, unrecognizedFields: binary.custom ? { custom: binary.custom as never } : {} }));
  }
  return new Metadata(targets);
}
