/**
 * The writes of update checks, grouped: checks finishing at about the same time in this process
 * are written by ONE autocommit statement (events/service.ts recordEventsInOneStatement), so a
 * busy server pays one commit, one WAL flush and one lock of a phased release's counter per
 * group instead of per check. The caller still waits for its group's commit: when a check
 * answers, everything it recorded is durable, exactly as if it had been written alone.
 *
 * Each check's writes stay all-or-nothing: a check that asks for a phase claim has its events
 * and device update kept only when its claim row is inserted (phase-claims.ts claimBatchParts),
 * so a claim exists exactly when its `device.claimed_release` does; a refused check wrote
 * nothing and resolves again. A group that fails as a whole (a device deleted meanwhile, a
 * deadlock with another process) is retried check by check, so one check's error is only ever
 * its own.
 *
 * Grouping never waits for company: a check is sent with the next group to leave, and a group
 * leaves as soon as fewer than MAX_IN_FLIGHT groups are at the database. An idle server writes
 * each check at once; a busy one writes bigger groups.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { recordEventsInOneStatement, type NewEvent } from '../events/service';
import { claimBatchParts, type Claim } from './phase-claims';

/** The reported state a `write` check stores on the device. */
export interface ReportedUpdate {
  deviceId: string;
  releasePrn: string | null;
  bundlePrn: string | null;
  releaseVersion: string | null;
}

export interface CheckWrite {
  deviceId: string;
  /** `device.checked_for_release`, and `device.release_changed` when the write changed it. */
  events: NewEvent[];
  deviceUpdate: ReportedUpdate | null;
  /** A slot the check takes, with its `device.claimed_release`. */
  claim: { claim: Claim; event: NewEvent } | null;
}

export type CheckWriteOutcome = 'written' | 'slot_refused';

/** Groups at the database at once per process: enough to overlap one group's commit with the next. */
const MAX_IN_FLIGHT = 4;
/** Checks per group: keeps one statement's parameters and planning small. */
const MAX_GROUP = 64;

/** Writes `group` in one statement; answers the keys (`release|device`) of the claims granted. */
async function writeGroup(db: Executor, group: readonly CheckWrite[]): Promise<Set<string>> {
  const claims = group.flatMap((write) => (write.claim ? [write.claim.claim] : []));
  const parts = claims.length === 0 ? null : claimBatchParts(claims);
  const events: (NewEvent & { when?: SQL })[] = [];
  const updates: SQL[] = [];
  for (const write of group) {
    const when = write.claim && parts ? parts.granted(write.claim.claim) : undefined;
    if (write.claim) events.push({ ...write.claim.event, when });
    for (const event of write.events) events.push({ ...event, when });
    const u = write.deviceUpdate;
    if (u) updates.push(sql`(${u.deviceId}::uuid, ${u.releasePrn}::text, ${u.bundlePrn}::text, ${u.releaseVersion}::text, ${when ?? sql`true`})`);
  }
  const also =
    updates.length === 0
      ? []
      : [
          sql`update ${devices} set reported_release_prn = v.release_prn, reported_bundle_prn = v.bundle_prn, reported_release_version = v.release_version, updated_at = now()
            from (values ${sql.join(updates, sql`, `)}) as v(id, release_prn, bundle_prn, release_version, keep)
            where ${devices.id} = v.id and v.keep`,
        ];
  const rows = (await recordEventsInOneStatement(db, events, { also, ctes: parts?.ctes, select: parts?.select })) as { release_id: string; device_id: string }[];
  return new Set(rows.map((row) => `${row.release_id}|${row.device_id}`));
}

function outcomeOf(write: CheckWrite, granted: Set<string>): CheckWriteOutcome {
  if (!write.claim) return 'written';
  return granted.has(`${write.claim.claim.releaseId}|${write.claim.claim.deviceId}`) ? 'written' : 'slot_refused';
}

interface Pending {
  write: CheckWrite;
  resolve(outcome: CheckWriteOutcome): void;
  reject(error: unknown): void;
}

class CheckWriteGroups {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly db: Executor) {}

  submit(write: CheckWrite): Promise<CheckWriteOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      // Checks whose I/O completes in this turn of the event loop leave together.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const group = this.take();
      this.inFlight++;
      void this.run(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /**
   * The next group in arrival order, at most one check per device: two checks of one device in
   * one statement would update its row twice (and could claim twice), so the later one waits
   * for the next group, where it sees the earlier one's writes like any later check.
   */
  private take(): Pending[] {
    const group: Pending[] = [];
    const rest: Pending[] = [];
    const devicesInGroup = new Set<string>();
    for (const pending of this.queue) {
      if (group.length < MAX_GROUP && !devicesInGroup.has(pending.write.deviceId)) {
        devicesInGroup.add(pending.write.deviceId);
        group.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return group;
  }

  private async run(group: Pending[]): Promise<void> {
    try {
      const granted = await writeGroup(this.db, group.map((p) => p.write));
      for (const pending of group) pending.resolve(outcomeOf(pending.write, granted));
    } catch (error) {
      if (group.length === 1) return group[0].reject(error);
      await Promise.all(
        group.map((pending) =>
          writeGroup(this.db, [pending.write]).then(
            (granted) => pending.resolve(outcomeOf(pending.write, granted)),
            (alone) => pending.reject(alone),
          ),
        ),
      );
    }
  }
}

const groupsByExecutor = new WeakMap<object, CheckWriteGroups>();

/** Writes one check's events, device update and claim; resolves once they are committed. */
export async function writeCheck(db: Executor, write: CheckWrite): Promise<CheckWriteOutcome> {
  // Inside a caller's transaction the writes belong to it alone: no grouping with other checks.
  if ('rollback' in db) return outcomeOf(write, await writeGroup(db, [write]));
  let groups = groupsByExecutor.get(db);
  if (!groups) groupsByExecutor.set(db, (groups = new CheckWriteGroups(db)));
  return groups.submit(write);
}
