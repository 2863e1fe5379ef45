/**
 * Checks on metadata the organization uploads, with @tufjs/models: a root signed by the previous
 * root's threshold and its own, targets signed by the keys the root (or the delegating targets)
 * names, versions that only go up. Pure: the service loads the trusted metadata and asks.
 */
import { Metadata, MetadataKind, Root, type Targets } from '@tufjs/models';
import { invalidField } from '../http/errors';

type Json = Record<string, unknown>;
/** The JSON object type @tufjs/models reads (not exported by its index). */
type TufJson = Parameters<typeof Root.fromJSON>[0];

/** Parses `field` as a role's metadata; 422 `invalid_metadata` when @tufjs/models refuses it. */
export function parseRoot(field: string, body: unknown): Metadata<Root> {
  return parse(field, body, (json) => Metadata.fromJSON(MetadataKind.Root, json as TufJson));
}

export function parseTargets(field: string, body: unknown): Metadata<Targets> {
  return parse(field, body, (json) => Metadata.fromJSON(MetadataKind.Targets, json as TufJson));
}

function parse<T>(field: string, body: unknown, read: (json: Json) => T): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidField(field, 'invalid_metadata');
  try {
    return read(body as Json);
  } catch (error) {
    throw invalidField(field, 'invalid_metadata', { detail: (error as Error).message.slice(0, 200) });
  }
}

/** Which thresholds a root update meets: the trusted root's and its own (TUF spec 5.3.4-5). */
export function rootSignatureCheck(trusted: Metadata<Root> | null, next: Metadata<Root>): { previous: boolean; own: boolean } {
  return { previous: trusted ? meets(() => trusted.verifyDelegate('root', next)) : true, own: meets(() => next.verifyDelegate('root', next)) };
}

function meets(check: () => void): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

/** 422 unless `next` may follow `trusted`: the next version and both thresholds met. */
export function assertRootUpdate(field: string, trusted: Metadata<Root> | null, next: Metadata<Root>) {
  const expected = (trusted?.signed.version ?? 0) + 1;
  if (next.signed.version !== expected) throw invalidField(field, 'wrong_version', { expected });
  const check = rootSignatureCheck(trusted, next);
  if (!check.previous) throw invalidField('signatures', 'threshold_not_met', { role: 'root', of: 'previous_root' });
  if (!check.own) throw invalidField('signatures', 'threshold_not_met', { role: 'root', of: 'new_root' });
}

/**
 * 422 unless `meta` is `role`'s next targets metadata: signed by the delegator's threshold for
 * the role, a version above the current one.
 */
export function assertTargetsUpdate(field: string, delegator: Metadata<Root> | Metadata<Targets>, role: string, meta: Metadata<Targets>, currentVersion: number | null) {
  if (currentVersion !== null && meta.signed.version <= currentVersion) throw invalidField(field, 'version_not_increased', { current: currentVersion });
  if (!meets(() => delegator.verifyDelegate(role, meta))) throw invalidField('signatures', 'threshold_not_met', { role });
}

/** The delegated roles a targets metadata names, for the snapshot to list. */
export function delegatedRoleNames(targets: Metadata<Targets>): string[] {
  return Object.keys(targets.signed.delegations?.roles ?? {});
}
