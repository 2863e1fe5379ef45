/**
 * The snapshot and timestamp the server signs with its online keys. Pure: given the trusted
 * root, the latest version of each targets role and the online key pairs, it builds and signs.
 * Only keys the root names for the role sign, up to its threshold.
 */
import { Metadata, MetaFile, type Root, Snapshot, Timestamp } from '@tufjs/models';
import { tufExpiry, tufSigner, type TufKeyPair } from '@canopy/sdk/tuf';

export const SPEC_VERSION = '1.0.31';

function signWithRole(meta: Metadata<Snapshot> | Metadata<Timestamp>, root: Root, role: 'snapshot' | 'timestamp', pairs: TufKeyPair[]): boolean {
  const named = root.roles[role];
  const usable = pairs.filter((pair) => named?.keyIDs.includes(pair.key.keyID)).slice(0, named?.threshold ?? 0);
  for (const pair of usable) meta.sign(tufSigner(pair));
  return named !== undefined && usable.length >= named.threshold;
}

export function signSnapshot(root: Root, targetsVersions: Record<string, number>, version: number, now: Date, expirySeconds: number, pairs: TufKeyPair[]) {
  const meta: Record<string, MetaFile> = {};
  for (const [role, roleVersion] of Object.entries(targetsVersions)) meta[`${role}.json`] = new MetaFile({ version: roleVersion });
  const snapshot = new Metadata(new Snapshot({ version, specVersion: SPEC_VERSION, expires: tufExpiry(now, expirySeconds), meta }));
  return signWithRole(snapshot, root, 'snapshot', pairs) ? snapshot : null;
}

export function signTimestamp(root: Root, snapshotVersion: number, version: number, now: Date, expirySeconds: number, pairs: TufKeyPair[]) {
  const timestamp = new Metadata(new Timestamp({ version, specVersion: SPEC_VERSION, expires: tufExpiry(now, expirySeconds), snapshotMeta: new MetaFile({ version: snapshotVersion }) }));
  return signWithRole(timestamp, root, 'timestamp', pairs) ? timestamp : null;
}
