/**
 * Where a created or moved release goes in its chain, from the `next_release_prn` /
 * `previous_release_prn` a client sent (ids here). Pure, on top of chain.ts.
 */
import { appendAsLatest, insertBefore, type ChainEdit } from './chain';

export interface Placement {
  /** undefined: not given; null: "none" (the release becomes the latest). */
  nextId?: string | null;
  /** undefined: not given; null: "none" (the release becomes the first). */
  previousId?: string | null;
}

export type PlacementResult = ChainEdit | { ok: false; reason: 'not_adjacent'; releaseId: string };

/**
 * Place `id` in `order` (which does not contain it). With neither given it becomes the latest.
 * With both, they must be neighbours in `order`, else `not_adjacent`.
 */
export function placeRelease(order: readonly string[], id: string, placement: Placement): PlacementResult {
  const { nextId, previousId } = placement;
  if (nextId !== undefined && previousId !== undefined) {
    const nextIndex = nextId === null ? order.length : order.indexOf(nextId);
    const previousIndex = previousId === null ? -1 : order.indexOf(previousId);
    if (nextId !== null && nextIndex === -1) return { ok: false, reason: 'not_in_chain', releaseId: nextId };
    if (previousId !== null && previousIndex === -1) return { ok: false, reason: 'not_in_chain', releaseId: previousId };
    if (nextIndex !== previousIndex + 1) return { ok: false, reason: 'not_adjacent', releaseId: id };
  }
  if (nextId !== undefined && nextId !== null) return insertBefore(order, id, nextId);
  if (previousId === undefined || nextId === null) return appendAsLatest(order, id);
  if (previousId === null) return order.length === 0 ? appendAsLatest(order, id) : insertBefore(order, id, order[0]);
  const index = order.indexOf(previousId);
  if (index === -1) return { ok: false, reason: 'not_in_chain', releaseId: previousId };
  return index === order.length - 1 ? appendAsLatest(order, id) : insertBefore(order, id, order[index + 1]);
}
