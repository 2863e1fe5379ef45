/**
 * An organization's TUF repository: roots and targets the organization signs offline and
 * uploads, checked here; the snapshot and timestamp this server signs with its online keys,
 * published again on every change and refreshed before the timestamp expires (refresher.ts).
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { Metadata, MetadataKind, Root, Signature } from '@tufjs/models';
import { generateTufKey, tufKeyFromPrivatePem, type TufKeyPair } from '@canopy/sdk/tuf';
import type { Executor } from '../db/connection';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { invalidField, notFound } from '../http/errors';
import type { Platform } from '../platform';
import { signSnapshot, signTimestamp } from './online-signing';
import { tufOnlineKeys, tufRootProposals } from './schema';
import { bodyAt, insertMetadata, latestBody, latestTargets, lockRepository, onlineKeyRows, pruneOnlineRole, trustedRoot } from './store';
import { assertRootUpdate, assertTargetsUpdate, delegatedRoleNames, parseRoot, parseTargets, rootSignatureCheck } from './verification';

type Json = Record<string, unknown>;
type Services = Pick<Platform, 'db' | 'secrets' | 'config'>;

export async function createOnlineKeys(platform: Services, actor: Actor) {
  const made = { snapshot: generateTufKey(), timestamp: generateTufKey() };
  for (const [role, pair] of Object.entries(made) as ['snapshot' | 'timestamp', TufKeyPair][]) {
    await platform.db.insert(tufOnlineKeys).values({
      id: randomUUID(),
      organizationId: actor.organizationId,
      role,
      keyid: pair.key.keyID,
      publicKey: pair.key.toJSON(),
      sealedPrivateKey: platform.secrets.seal(pair.privatePem),
    });
  }
  await recordEvent(platform.db, {
    organizationId: actor.organizationId,
    type: 'tuf',
    subtype: 'online_keys_created',
    actorPrn: actor.prn,
    resourcePrn: null,
    data: { keyids: { snapshot: made.snapshot.key.keyID, timestamp: made.timestamp.key.keyID } },
  });
  return { snapshot: { keyid: made.snapshot.key.keyID, key: made.snapshot.key.toJSON() }, timestamp: { keyid: made.timestamp.key.keyID, key: made.timestamp.key.toJSON() } };
}

export async function listOnlineKeys(db: Executor, actor: Actor) {
  const root = await trustedRoot(db, actor.organizationId);
  return (await onlineKeyRows(db, actor.organizationId)).map((row) => ({
    role: row.role,
    keyid: row.keyid,
    key: row.publicKey,
    in_trusted_root: root?.signed.roles[row.role]?.keyIDs.includes(row.keyid) ?? false,
    inserted_at: row.insertedAt,
  }));
}

/** 422 unless this server holds enough of the keys `root` names for snapshot and timestamp. */
async function assertOnlineKeysHeld(db: Executor, organizationId: string, root: Metadata<Root>) {
  const held = new Set((await onlineKeyRows(db, organizationId)).map((row) => `${row.role}:${row.keyid}`));
  for (const role of ['snapshot', 'timestamp'] as const) {
    const named = root.signed.roles[role];
    const count = named?.keyIDs.filter((keyid) => held.has(`${role}:${keyid}`)).length ?? 0;
    if (!named || count < named.threshold) throw invalidField('root', 'online_keys_not_held', { role });
  }
}

async function commitCheckedRoot(platform: Services, actor: Actor, root: Metadata<Root>) {
  await insertMetadata(platform.db, actor.organizationId, 'root', root.signed.version, root.toJSON());
  const keyids: Record<string, string[]> = {};
  for (const [role, value] of Object.entries(root.signed.roles)) keyids[role] = value.keyIDs;
  await recordEvent(platform.db, { organizationId: actor.organizationId, type: 'tuf', subtype: 'root_committed', actorPrn: actor.prn, resourcePrn: null, data: { version: root.signed.version, keyids } });
  await publishOnlineRoles(platform, actor.organizationId, new Date());
  return rootToWire(root);
}

function rootToWire(root: Metadata<Root>) {
  return { version: root.signed.version, expires: root.signed.expires, metadata: root.toJSON() };
}

/** `PUT /tuf/root`: a root signed by the previous root's threshold and its own becomes trusted. */
export async function commitRoot(platform: Services, actor: Actor, body: unknown) {
  const next = parseRoot('root', body);
  await lockRepository(platform.db, actor.organizationId);
  assertRootUpdate('root', await trustedRoot(platform.db, actor.organizationId), next);
  await assertOnlineKeysHeld(platform.db, actor.organizationId, next);
  return commitCheckedRoot(platform, actor, next);
}

export async function proposeRoot(platform: Services, actor: Actor, body: unknown) {
  const next = parseRoot('root', body);
  await lockRepository(platform.db, actor.organizationId);
  const trusted = await trustedRoot(platform.db, actor.organizationId);
  const expected = (trusted?.signed.version ?? 0) + 1;
  if (next.signed.version !== expected) throw invalidField('root', 'wrong_version', { expected });
  await assertOnlineKeysHeld(platform.db, actor.organizationId, next);
  await platform.db
    .insert(tufRootProposals)
    .values({ organizationId: actor.organizationId, version: next.signed.version, body: next.toJSON() })
    .onConflictDoUpdate({ target: [tufRootProposals.organizationId, tufRootProposals.version], set: { body: next.toJSON(), insertedAt: sql`now()` } });
  return proposalToWire(trusted, next);
}

function proposalToWire(trusted: Metadata<Root> | null, next: Metadata<Root>) {
  const check = rootSignatureCheck(trusted, next);
  return { version: next.signed.version, signed: next.signed.toJSON(), signatures: Object.values(next.signatures).map((s) => s.toJSON()), thresholds_met: { previous_root: check.previous, new_root: check.own } };
}

async function loadProposal(db: Executor, organizationId: string, version: number) {
  const [row] = await db.select().from(tufRootProposals).where(and(eq(tufRootProposals.organizationId, organizationId), eq(tufRootProposals.version, version)));
  if (!row) throw notFound('root_proposal');
  return Metadata.fromJSON(MetadataKind.Root, row.body as Parameters<typeof Root.fromJSON>[0]);
}

export async function getProposal(db: Executor, actor: Actor, version: number) {
  return proposalToWire(await trustedRoot(db, actor.organizationId), await loadProposal(db, actor.organizationId, version));
}

/** Adds signatures to a proposal; each must verify with a root key of the previous or new root. */
export async function addProposalSignatures(platform: Services, actor: Actor, version: number, signatures: { keyid: string; sig: string }[]) {
  await lockRepository(platform.db, actor.organizationId);
  const proposal = await loadProposal(platform.db, actor.organizationId, version);
  const trusted = await trustedRoot(platform.db, actor.organizationId);
  const keys = { ...(trusted?.signed.keys ?? {}), ...proposal.signed.keys };
  signatures.forEach((signature, index) => {
    const key = keys[signature.keyid];
    const one = new Metadata(proposal.signed, { [signature.keyid]: new Signature({ keyID: signature.keyid, sig: signature.sig }) });
    try {
      if (!key) throw new Error('unknown key');
      key.verifySignature(one);
    } catch {
      throw invalidField(`signatures[${index}]`, 'invalid_signature');
    }
    proposal.signatures[signature.keyid] = one.signatures[signature.keyid];
  });
  await platform.db
    .update(tufRootProposals)
    .set({ body: proposal.toJSON() })
    .where(and(eq(tufRootProposals.organizationId, actor.organizationId), eq(tufRootProposals.version, version)));
  return proposalToWire(trusted, proposal);
}

export async function commitProposal(platform: Services, actor: Actor, version: number) {
  await lockRepository(platform.db, actor.organizationId);
  const proposal = await loadProposal(platform.db, actor.organizationId, version);
  assertRootUpdate('version', await trustedRoot(platform.db, actor.organizationId), proposal);
  await assertOnlineKeysHeld(platform.db, actor.organizationId, proposal);
  await platform.db.delete(tufRootProposals).where(and(eq(tufRootProposals.organizationId, actor.organizationId), eq(tufRootProposals.version, version)));
  return commitCheckedRoot(platform, actor, proposal);
}

/** The delegator of a targets role: the root for `targets`, else the targets that delegates it. */
async function delegatorOf(db: Executor, organizationId: string, role: string) {
  const root = await trustedRoot(db, organizationId);
  if (!root) throw invalidField('role', 'no_trusted_root');
  if (role === 'targets') return root;
  const targets = await latestTargets(db, organizationId, 'targets');
  if (!targets || !delegatedRoleNames(targets).includes(role)) throw invalidField('role', 'not_delegated');
  return targets;
}

/** `PUT /tuf/metadata/{role}`: offline-signed targets or delegated targets metadata. */
export async function uploadTargets(platform: Services, actor: Actor, role: string, body: unknown) {
  const meta = parseTargets('metadata', body);
  await lockRepository(platform.db, actor.organizationId);
  const delegator = await delegatorOf(platform.db, actor.organizationId, role);
  const current = await latestBody(platform.db, actor.organizationId, role);
  assertTargetsUpdate('metadata', delegator, role, meta, current?.version ?? null);
  await insertMetadata(platform.db, actor.organizationId, role, meta.signed.version, meta.toJSON());
  await recordEvent(platform.db, {
    organizationId: actor.organizationId,
    type: 'tuf',
    subtype: 'targets_published',
    actorPrn: actor.prn,
    resourcePrn: null,
    data: { role, version: meta.signed.version, targets: Object.keys(meta.signed.targets).length },
  });
  await publishOnlineRoles(platform, actor.organizationId, new Date());
  return { role, version: meta.signed.version, metadata: meta.toJSON() };
}

async function onlinePairs(platform: Services, organizationId: string): Promise<TufKeyPair[]> {
  return (await onlineKeyRows(platform.db, organizationId)).map((row) => tufKeyFromPrivatePem(platform.secrets.open(row.sealedPrivateKey)));
}

/**
 * A new snapshot (listing every targets role's latest version) and timestamp, signed with the
 * online keys the trusted root names. Nothing until there is a root and top-level targets.
 */
export async function publishOnlineRoles(platform: Services, organizationId: string, now: Date) {
  const root = await trustedRoot(platform.db, organizationId);
  const targets = await latestTargets(platform.db, organizationId, 'targets');
  if (!root || !targets) return;
  const versions: Record<string, number> = { targets: targets.signed.version };
  for (const role of delegatedRoleNames(targets)) {
    const delegated = await latestBody(platform.db, organizationId, role);
    if (delegated) versions[role] = delegated.version;
  }
  const pairs = await onlinePairs(platform, organizationId);
  const snapshotVersion = ((await latestBody(platform.db, organizationId, 'snapshot'))?.version ?? 0) + 1;
  const snapshot = signSnapshot(root.signed, versions, snapshotVersion, now, platform.config.tufSnapshotExpirySeconds, pairs);
  if (!snapshot) return;
  await insertMetadata(platform.db, organizationId, 'snapshot', snapshotVersion, snapshot.toJSON());
  await pruneOnlineRole(platform.db, organizationId, 'snapshot', snapshotVersion);
  await publishTimestamp(platform, organizationId, root.signed, snapshotVersion, pairs, now);
}

async function publishTimestamp(platform: Services, organizationId: string, root: Root, snapshotVersion: number, pairs: TufKeyPair[], now: Date) {
  const version = ((await latestBody(platform.db, organizationId, 'timestamp'))?.version ?? 0) + 1;
  const timestamp = signTimestamp(root, snapshotVersion, version, now, platform.config.tufTimestampExpirySeconds, pairs);
  if (!timestamp) return;
  await insertMetadata(platform.db, organizationId, 'timestamp', version, timestamp.toJSON());
  await pruneOnlineRole(platform.db, organizationId, 'timestamp', version);
}

/** A fresh timestamp for the same snapshot (the refresher's job). */
export async function refreshTimestamp(platform: Services, organizationId: string, now: Date) {
  await lockRepository(platform.db, organizationId);
  const root = await trustedRoot(platform.db, organizationId);
  const snapshot = await latestBody(platform.db, organizationId, 'snapshot');
  if (!root || !snapshot) return;
  await publishTimestamp(platform, organizationId, root.signed, snapshot.version, await onlinePairs(platform, organizationId), now);
}

/** `GET /tuf/metadata/{file}` (admin) and the device API's `/tuf/{file}`: the JSON served, or null. */
export async function servedMetadata(db: Executor, organizationId: string, file: string): Promise<Json | null> {
  const rootFile = /^([1-9][0-9]{0,8})\.root\.json$/.exec(file);
  if (rootFile) {
    return bodyAt(db, organizationId, 'root', Number(rootFile[1]));
  }
  const roleFile = /^(.{1,128})\.json$/.exec(file);
  if (!roleFile) return null;
  return (await latestBody(db, organizationId, roleFile[1]))?.body ?? null;
}
