/**
 * A cohort's release chain (site/docs/canopy-core/reference/bundle-management/releases.md, "The
 * chain"): releases linked first -> latest through `next_release_prn`, the latest having none.
 * Pure validation plus the link changes of each edit, so the service can compute an edit, check
 * the resulting chain, and only then write it: a change that would break the chain is a 409 and
 * changes nothing.
 */

export interface ChainLink {
  id: string;
  /** The next (newer) release; null for the latest. */
  nextReleaseId: string | null;
  /** When given, every release must belong to the cohort being validated. */
  cohortId?: string;
}

export type ChainProblem =
  | { reason: 'duplicate_release'; releaseId: string }
  | { reason: 'foreign_cohort'; releaseId: string }
  | { reason: 'dangling_link'; releaseId: string; nextReleaseId: string }
  | { reason: 'two_latest'; releaseIds: string[] }
  | { reason: 'no_latest' }
  | { reason: 'two_predecessors'; releaseId: string; predecessorIds: string[] }
  | { reason: 'cycle'; releaseIds: string[] };

export type ChainValidation = { ok: true; order: string[] } | ({ ok: false } & ChainProblem);

/** One row update: set `nextReleaseId` of `releaseId`. */
export interface LinkChange {
  releaseId: string;
  nextReleaseId: string | null;
}

export type ChainEdit = { ok: true; changes: LinkChange[] } | { ok: false; reason: 'already_in_chain' | 'not_in_chain'; releaseId: string };

/**
 * The releases in order, first to latest, or the first problem found. Checked in an order that
 * names the most specific problem: membership, links, the single latest, fan-in, then reachability
 * (whatever is left unreachable from the first release sits on a cycle).
 */
export function validateChain(links: readonly ChainLink[], cohortId?: string): ChainValidation {
  const byId = new Map<string, ChainLink>();
  for (const link of links) {
    if (byId.has(link.id)) return { ok: false, reason: 'duplicate_release', releaseId: link.id };
    if (cohortId !== undefined && link.cohortId !== undefined && link.cohortId !== cohortId) {
      return { ok: false, reason: 'foreign_cohort', releaseId: link.id };
    }
    byId.set(link.id, link);
  }
  if (links.length === 0) return { ok: true, order: [] };

  const predecessors = new Map<string, string[]>();
  for (const link of links) {
    if (link.nextReleaseId === null) continue;
    // A link to a release outside this set is dangling (another cohort's release included).
    if (!byId.has(link.nextReleaseId)) return { ok: false, reason: 'dangling_link', releaseId: link.id, nextReleaseId: link.nextReleaseId };
    const list = predecessors.get(link.nextReleaseId) ?? [];
    list.push(link.id);
    predecessors.set(link.nextReleaseId, list);
  }

  const latest = links.filter((link) => link.nextReleaseId === null).map((link) => link.id);
  if (latest.length > 1) return { ok: false, reason: 'two_latest', releaseIds: latest };
  if (latest.length === 0) return { ok: false, reason: 'cycle', releaseIds: links.map((link) => link.id) };

  for (const [releaseId, ids] of predecessors) {
    if (ids.length > 1) return { ok: false, reason: 'two_predecessors', releaseId, predecessorIds: ids };
  }

  // With one latest and no fan-in, the links form one path plus possibly separate cycles.
  const first = links.find((link) => !predecessors.has(link.id));
  const order: string[] = [];
  for (let current = first; current !== undefined; current = current.nextReleaseId === null ? undefined : byId.get(current.nextReleaseId)) {
    order.push(current.id);
  }
  if (order.length !== links.length) {
    const onPath = new Set(order);
    return { ok: false, reason: 'cycle', releaseIds: links.map((link) => link.id).filter((id) => !onPath.has(id)) };
  }
  return { ok: true, order };
}

/** A new release becomes the latest: the old latest points at it. */
export function appendAsLatest(order: readonly string[], newId: string): ChainEdit {
  if (order.includes(newId)) return { ok: false, reason: 'already_in_chain', releaseId: newId };
  const changes: LinkChange[] = [{ releaseId: newId, nextReleaseId: null }];
  const latest = order[order.length - 1];
  if (latest !== undefined) changes.unshift({ releaseId: latest, nextReleaseId: newId });
  return { ok: true, changes };
}

/** A new release goes right before `beforeId` (the `next_release_prn` given on create). */
export function insertBefore(order: readonly string[], newId: string, beforeId: string): ChainEdit {
  if (order.includes(newId)) return { ok: false, reason: 'already_in_chain', releaseId: newId };
  const index = order.indexOf(beforeId);
  if (index === -1) return { ok: false, reason: 'not_in_chain', releaseId: beforeId };
  const changes: LinkChange[] = [{ releaseId: newId, nextReleaseId: beforeId }];
  if (index > 0) changes.unshift({ releaseId: order[index - 1], nextReleaseId: newId });
  return { ok: true, changes };
}

/**
 * Take `id` out and join its neighbours. The changes cover the surviving releases only; the caller
 * deletes (or detaches) the removed row itself.
 */
export function removeFromChain(order: readonly string[], id: string): ChainEdit {
  const index = order.indexOf(id);
  if (index === -1) return { ok: false, reason: 'not_in_chain', releaseId: id };
  if (index === 0) return { ok: true, changes: [] };
  return { ok: true, changes: [{ releaseId: order[index - 1], nextReleaseId: order[index + 1] ?? null }] };
}

/**
 * The links after an edit: apply `changes`, add releases they introduce, drop `removedIds`.
 * Lets the service validate the outcome before writing anything.
 */
export function applyLinkChanges(links: readonly ChainLink[], changes: readonly LinkChange[], removedIds: readonly string[] = []): ChainLink[] {
  const next = new Map(links.map((link) => [link.id, { ...link }]));
  for (const id of removedIds) next.delete(id);
  for (const change of changes) {
    const existing = next.get(change.releaseId);
    next.set(change.releaseId, { ...existing, id: change.releaseId, nextReleaseId: change.nextReleaseId });
  }
  return [...next.values()];
}
