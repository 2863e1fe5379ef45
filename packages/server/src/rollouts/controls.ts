/**
 * `POST /releases/{prn}/pause`, `/resume` and `/cancel` (control-rules.ts says what each does).
 * Each runs under the cohort's chain lock, like every chain edit, and ends in verifyChain, which
 * moves the chain stamp in the same transaction: every server's update checks see the new state
 * at their next check (updates/chain-cache.ts). A change records `release.paused`,
 * `release.resumed` or `release.cancelled`; asking for the state the release is already in
 * changes nothing and records nothing.
 */
import { sql } from 'drizzle-orm';
import { resourcePrn } from '../core/prn';
import type { Database } from '../db/connection';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { conflict } from '../http/errors';
import { lockCohortChain, verifyChain } from '../releases/chain-store';
import { getRelease } from '../releases/service';
import { withPrevious, type ReleaseWithPrevious } from '../releases/wire';
import { controlOutcome, type ReleaseControl } from './control-rules';

const EVENT_SUBTYPES = { pause: 'paused', resume: 'resumed', cancel: 'cancelled' } as const;

export async function controlRelease(db: Database, actor: Actor, prn: string, action: ReleaseControl): Promise<ReleaseWithPrevious> {
  return db.transaction(async (tx) => {
    const found = await getRelease(tx, actor, prn);
    await lockCohortChain(tx, found.cohortId);
    // Read again under the lock: the health gate or another control may have moved it meanwhile.
    const current = await getRelease(tx, actor, prn);
    const state = { paused: current.pausedAt !== null, halted: current.haltedAt !== null, cancelled: current.cancelledAt !== null };
    const outcome = controlOutcome(action, state);
    if (outcome.kind === 'refused') throw conflict(outcome.reason, { release_prn: resourcePrn(actor.organizationId, 'release', current.id), cancelled_at: current.cancelledAt });
    if (outcome.kind === 'unchanged') return current;
    const { change } = outcome;
    await tx.execute(sql`
      update releases set
        paused_at = ${change.setPaused === undefined ? sql`paused_at` : change.setPaused ? sql`now()` : sql`null`},
        cancelled_at = ${change.setCancelled ? sql`now()` : sql`cancelled_at`},
        halted_at = ${change.clearHalt ? sql`null` : sql`halted_at`},
        disabled = ${change.clearHalt ? sql`false` : sql`disabled`},
        updated_at = now()
      where id = ${current.id}`);
    const chain = withPrevious(await verifyChain(tx, actor.organizationId, current.cohortId));
    const after = chain.find((row) => row.id === current.id)!;
    const releasePrn = resourcePrn(actor.organizationId, 'release', current.id);
    await recordEvent(tx, {
      organizationId: actor.organizationId,
      type: 'release',
      subtype: EVENT_SUBTYPES[action],
      actorPrn: actor.prn,
      resourcePrn: releasePrn,
      data: { release: releasePrn, was_paused: state.paused, was_halted: state.halted },
    });
    return after;
  });
}
