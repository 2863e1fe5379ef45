/**
 * Releases: create, read, list, change and delete, each chain edit serialised per cohort
 * (chain-store.ts) and checked as a whole before anything is written. Refusals:
 * 422 for a field that is wrong on its own, 409 `release_chain_invalid` for an edit the chain
 * cannot take, 409 `release_phase_complete` for touching a completed phase's value.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { conflict, invalidField, notFound, validationError } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { resourceIdFromPrn } from '../core/prn';
import { searchCondition, type SearchColumn, type SearchFields } from '../search/search';
import { parseDateTime } from '../core/time';
import { removeFromChain, type LinkChange } from './chain';
import { chainInvalid, loadChain, lockCohortChain, orderAfter, verifyChain, writeLinks, type ReleaseRow } from './chain-store';
import { enqueueReleaseDeltas } from '../deltas/enqueue';
import { checkBundleProduct } from './bundle-product';
import { getBundle, getCohort } from './neighbours';
import { placeRelease, type Placement } from './position';
import { chainRuleProblem, phaseTypeOf, phaseValueFrozen, releaseFieldProblems } from './release-rules';
import { haltSettingProblems } from '../rollouts/halt-rule';
import { penaltySettingProblems } from '../rollouts/penalty-rule';
import { soakSettingProblems } from '../rollouts/soak-rule';
import { windowProblems, type MaintenanceWindow } from '../updates/core/window-rule';
import { capSettingProblems } from '../updates/core/concurrency-rule';
import { releases } from './schema';
import { withPrevious, type ReleaseWithPrevious } from './wire';

/** The writable fields, in wire names (`version-requirement` is mapped by the route). */
export interface ReleaseFields {
  bundle_prn?: string;
  cohort_prn?: string;
  name?: string;
  description?: string | null;
  required?: boolean;
  disabled?: boolean;
  schedule_date?: string | null;
  version?: string | null;
  version_requirement?: string | null;
  phase_mode?: 'numeric' | 'tags';
  phase_tags?: string[] | null;
  phase_type?: 'static' | 'percent' | null;
  phase_value?: number | null;
  next_release_prn?: string | null;
  previous_release_prn?: string | null;
  halt_failure_ratio?: number | null;
  halt_min_reports?: number;
  penalty_box?: { failures: number; window_seconds: number | null; rest_seconds: number } | null;
  maintenance_windows?: MaintenanceWindow[] | null;
  soak_seconds?: number | null;
  max_concurrent?: number | null;
  slot_timeout_seconds?: number | null;
}

export interface NewRelease extends ReleaseFields {
  bundle_prn: string;
  cohort_prn: string;
  name: string;
  required: boolean;
  schedule_date: string | null;
}

// Spelled out: drizzle renders a bare column unqualified inside a select list, which the
// subquery's own alias would capture.
const previousReleaseId = sql<string | null>`(select p.id from releases p where p.next_release_id = "releases"."id" limit 1)`.as('previous_release_id');
const withPreviousColumns = { ...getTableColumns(releases), previousReleaseId };

function releaseSearch(organizationId: string): SearchFields {
  const prnField = (column: SearchColumn, type: 'cohort' | 'bundle') =>
    ({ column, type: 'prn', operators: [':'], resolve: (prn: string) => resourceIdFromPrn(prn, type, organizationId) }) as const;
  return {
    name: { column: releases.name, type: 'string', operators: [':', '-', '~'] },
    description: { column: releases.description, type: 'string', operators: [':', '-', '~'] },
    version: { column: releases.version, type: 'string', operators: [':', '-', '~'] },
    required: { column: releases.required, type: 'boolean', operators: [':'] },
    disabled: { column: releases.disabled, type: 'boolean', operators: [':'] },
    cohort_prn: prnField(releases.cohortId, 'cohort'),
    bundle_prn: prnField(releases.bundleId, 'bundle'),
    schedule_date: { column: releases.scheduleDate, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    inserted_at: { column: releases.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: releases.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

function scheduleDate(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const parsed = parseDateTime(value);
  if (parsed === null) throw invalidField('schedule_date', 'invalid_date_time');
  return parsed;
}

/** A `next_release_prn` / `previous_release_prn`: 422 unless a release of this organization. */
async function linkedReleaseId(db: Executor, actor: Actor, field: string, prn: string | null | undefined, cohortId: string): Promise<string | null | undefined> {
  if (prn === undefined || prn === null) return prn;
  const row = await findRelease(db, actor, prn);
  if (!row) throw invalidField(field, 'not_found');
  if (row.cohortId !== cohortId) throw chainInvalid(actor.organizationId, { reason: 'foreign_cohort', releaseId: row.id });
  return row.id;
}

async function findRelease(db: Executor, actor: Actor, prn: string): Promise<ReleaseRow | null> {
  const id = resourceIdFromPrn(prn, 'release', actor.organizationId);
  if (!id) return null;
  const [row] = await db.select().from(releases).where(and(eq(releases.id, id), eq(releases.organizationId, actor.organizationId))).limit(1);
  return row ?? null;
}

/** The stored row a create or PATCH would produce, checked field by field (422). */
function checkFields(row: ReleaseRow, input: ReleaseFields): void {
  const problems: { field: string; reason: string; expected?: string | null }[] = [
    ...releaseFieldProblems(row),
    ...haltSettingProblems(row),
    ...penaltySettingProblems(row.penaltyBox ?? null),
    ...windowProblems(row.maintenanceWindows),
    ...capSettingProblems(row.maxConcurrent ?? null, row.slotTimeoutSeconds ?? null),
    ...soakSettingProblems(row.soakSeconds),
  ];
  if (input.phase_type !== undefined && input.phase_type !== null && input.phase_type !== phaseTypeOf(row.phaseValue)) {
    problems.push({ field: 'phase_type', reason: 'does_not_match_phase_value', expected: phaseTypeOf(row.phaseValue) });
  }
  if (problems.length > 0) throw validationError(problems);
}

/** The whole chain after the edit must keep "only the latest is scheduled or phased". */
function checkChainRules(actor: Actor, order: readonly string[], rowsById: Map<string, ReleaseRow>): void {
  const problem = chainRuleProblem(
    order.map((id) => rowsById.get(id)!),
    new Date(),
  );
  if (problem) throw chainInvalid(actor.organizationId, problem);
}

function rowsByIdWith(chain: readonly ReleaseRow[], row: ReleaseRow): Map<string, ReleaseRow> {
  const map = new Map(chain.map((r) => [r.id, r]));
  map.set(row.id, row);
  return map;
}

function placementEdit(actor: Actor, order: readonly string[], id: string, placement: Placement): LinkChange[] {
  const edit = placeRelease(order, id, placement);
  if (!edit.ok) throw chainInvalid(actor.organizationId, edit);
  return edit.changes;
}

function findIn(chain: readonly ReleaseRow[], id: string): ReleaseWithPrevious {
  const row = withPrevious(chain).find((r) => r.id === id);
  if (!row) throw new Error(`release ${id} missing from its chain after the edit`);
  return row;
}

export async function createRelease(db: Database, actor: Actor, input: NewRelease): Promise<ReleaseWithPrevious> {
  return db.transaction(async (tx) => {
    const cohort = await getCohort(tx, actor, input.cohort_prn, 'cohort_prn');
    const bundle = await getBundle(tx, actor, input.bundle_prn, 'bundle_prn');
    const placement: Placement = {
      nextId: await linkedReleaseId(tx, actor, 'next_release_prn', input.next_release_prn, cohort.id),
      previousId: await linkedReleaseId(tx, actor, 'previous_release_prn', input.previous_release_prn, cohort.id),
    };
    await lockCohortChain(tx, cohort.id);
    // After the chain lock, the one every release write takes first.
    await checkBundleProduct(tx, actor.organizationId, bundle.id, cohort.id);
    const chain = await loadChain(tx, actor.organizationId, cohort.id);
    const id = randomUUID();
    const phaseMode = input.phase_mode ?? 'numeric';
    const row: ReleaseRow = {
      id,
      organizationId: actor.organizationId,
      cohortId: cohort.id,
      bundleId: bundle.id,
      name: input.name,
      description: input.description ?? null,
      required: input.required,
      disabled: input.disabled ?? false,
      scheduleDate: scheduleDate(input.schedule_date) ?? null,
      version: input.version ?? null,
      versionRequirement: input.version_requirement ?? null,
      phaseMode,
      phaseTags: input.phase_tags ?? null,
      // Numeric mode needs a value; none given means "not phased", i.e. complete (1).
      phaseValue: input.phase_value !== undefined ? input.phase_value : phaseMode === 'numeric' ? 1 : null,
      phaseClaimCount: 0,
      nextReleaseId: null,
      haltFailureRatio: input.halt_failure_ratio ?? null,
      haltMinReports: input.halt_min_reports ?? 5,
      haltedAt: null,
      pausedAt: null,
      cancelledAt: null,
      penaltyBox: input.penalty_box ?? null,
      maintenanceWindows: input.maintenance_windows ?? null,
      soakSeconds: input.soak_seconds ?? null,
      maxConcurrent: input.max_concurrent ?? null,
      slotTimeoutSeconds: input.slot_timeout_seconds ?? null,
      insertedAt: '',
      updatedAt: '',
    };
    checkFields(row, input);
    const changes = placementEdit(actor, chain.map((r) => r.id), id, placement);
    const order = orderAfter(actor.organizationId, cohort.id, chain, changes);
    checkChainRules(actor, order, rowsByIdWith(chain, row));

    const own = changes.find((change) => change.releaseId === id)!;
    const { insertedAt: _i, updatedAt: _u, ...values } = row;
    await tx.insert(releases).values({ ...values, nextReleaseId: own.nextReleaseId });
    await writeLinks(tx, changes.filter((change) => change.releaseId !== id));
    await enqueueReleaseDeltas(tx, actor.organizationId, { id, cohortId: cohort.id, bundleId: bundle.id });
    return findIn(await verifyChain(tx, actor.organizationId, cohort.id), id);
  });
}

export async function getRelease(db: Executor, actor: Actor, prn: string): Promise<ReleaseWithPrevious> {
  const id = resourceIdFromPrn(prn, 'release', actor.organizationId);
  const [row] = id
    ? await db.select(withPreviousColumns).from(releases).where(and(eq(releases.id, id), eq(releases.organizationId, actor.organizationId))).limit(1)
    : [];
  if (!row) throw notFound('release', prn);
  return row;
}

export async function listReleases(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(releases, page);
  const rows = await db
    .select(withPreviousColumns)
    .from(releases)
    .where(combine(eq(releases.organizationId, actor.organizationId), where, searchCondition(query.search, releaseSearch(actor.organizationId))))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

/** The fields of a PATCH merged over the stored row (undefined = unchanged, null = cleared). */
function merged(current: ReleaseRow, bundleId: string, input: ReleaseFields): ReleaseRow {
  const pick = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
  return {
    ...current,
    bundleId,
    name: pick(input.name, current.name),
    description: pick(input.description, current.description),
    required: pick(input.required, current.required),
    disabled: pick(input.disabled, current.disabled),
    scheduleDate: pick(scheduleDate(input.schedule_date), current.scheduleDate),
    version: pick(input.version, current.version),
    versionRequirement: pick(input.version_requirement, current.versionRequirement),
    phaseMode: pick(input.phase_mode, current.phaseMode),
    phaseTags: pick(input.phase_tags, current.phaseTags),
    phaseValue: pick(input.phase_value, current.phaseValue),
    haltFailureRatio: pick(input.halt_failure_ratio, current.haltFailureRatio),
    haltMinReports: pick(input.halt_min_reports, current.haltMinReports),
    penaltyBox: pick(input.penalty_box, current.penaltyBox),
    maintenanceWindows: pick(input.maintenance_windows, current.maintenanceWindows),
    soakSeconds: pick(input.soak_seconds, current.soakSeconds),
    maxConcurrent: pick(input.max_concurrent, current.maxConcurrent),
    slotTimeoutSeconds: pick(input.slot_timeout_seconds, current.slotTimeoutSeconds),
  };
}

/** A PATCH that names a position different from the current one moves the release. */
function moveChanges(actor: Actor, chain: readonly ReleaseRow[], id: string, placement: Placement): LinkChange[] {
  const order = chain.map((r) => r.id);
  const index = order.indexOf(id);
  const currentNext = order[index + 1] ?? null;
  const currentPrevious = index === 0 ? null : order[index - 1];
  const stays = (placement.nextId === undefined || placement.nextId === currentNext) && (placement.previousId === undefined || placement.previousId === currentPrevious);
  if (stays) return [];
  const removal = removeFromChain(order, id);
  if (!removal.ok) throw chainInvalid(actor.organizationId, removal);
  const without = order.filter((other) => other !== id);
  return [...removal.changes, ...placementEdit(actor, without, id, placement)];
}

export async function updateRelease(db: Database, actor: Actor, prn: string, input: ReleaseFields): Promise<ReleaseWithPrevious> {
  return db.transaction(async (tx) => {
    const found = await getRelease(tx, actor, prn);
    if (input.cohort_prn !== undefined && resourceIdFromPrn(input.cohort_prn, 'cohort', actor.organizationId) !== found.cohortId) {
      throw invalidField('cohort_prn', 'immutable');
    }
    await lockCohortChain(tx, found.cohortId);
    // Read again under the lock: the chain may have changed while we waited.
    const chain = await loadChain(tx, actor.organizationId, found.cohortId);
    const current = chain.find((r) => r.id === found.id);
    if (!current) throw notFound('release', prn);
    const bundleId = input.bundle_prn === undefined ? current.bundleId : (await getBundle(tx, actor, input.bundle_prn, 'bundle_prn')).id;
    if (bundleId !== current.bundleId) await checkBundleProduct(tx, actor.organizationId, bundleId, current.cohortId);
    const next = merged(current, bundleId, input);
    if (phaseValueFrozen(current.phaseValue, next.phaseValue)) {
      throw conflict('release_phase_complete', { field: 'phase_value', reason: 'phase_value 1 completed the phase; it can never change again' });
    }
    checkFields(next, input);
    const placement: Placement = {
      nextId: await linkedReleaseId(tx, actor, 'next_release_prn', input.next_release_prn, current.cohortId),
      previousId: await linkedReleaseId(tx, actor, 'previous_release_prn', input.previous_release_prn, current.cohortId),
    };
    if (placement.nextId === current.id || placement.previousId === current.id) throw chainInvalid(actor.organizationId, { reason: 'cycle', releaseId: current.id });
    const changes = moveChanges(actor, chain, current.id, placement);
    const order = orderAfter(actor.organizationId, current.cohortId, chain, changes);
    checkChainRules(actor, order, rowsByIdWith(chain, next));

    const { id, organizationId, cohortId, nextReleaseId, insertedAt, phaseClaimCount, disabled, haltedAt, pausedAt, cancelledAt, ...fields } = next;
    // The controls (pause, cancel: rollouts/controls.ts) have their own routes; a PATCH never writes them.
    // `disabled` is written only when sent: the health gate may halt the release meanwhile
    // (rollouts/halt.ts) without the cohort lock, and an unrelated PATCH must not undo that.
    // Enabling clears `halted_at` (resuming a halted rollout).
    const enabling = input.disabled === false ? { disabled: false, haltedAt: null } : input.disabled === true ? { disabled: true } : {};
    await tx.update(releases).set({ ...fields, ...enabling, updatedAt: sql`now()` }).where(eq(releases.id, id));
    await writeLinks(tx, changes);
    return findIn(await verifyChain(tx, actor.organizationId, current.cohortId), id);
  });
}

/** Deleting joins the release's neighbours, so the chain stays whole; its phase claims go with it. */
export async function deleteRelease(db: Database, actor: Actor, prn: string): Promise<void> {
  await db.transaction(async (tx) => {
    const found = await getRelease(tx, actor, prn);
    await lockCohortChain(tx, found.cohortId);
    const chain = await loadChain(tx, actor.organizationId, found.cohortId);
    const removal = removeFromChain(
      chain.map((r) => r.id),
      found.id,
    );
    if (!removal.ok) throw notFound('release', prn);
    const order = orderAfter(actor.organizationId, found.cohortId, chain, removal.changes, [found.id]);
    checkChainRules(actor, order, new Map(chain.map((r) => [r.id, r])));
    await tx.delete(releases).where(eq(releases.id, found.id));
    await writeLinks(tx, removal.changes);
    await verifyChain(tx, actor.organizationId, found.cohortId);
  });
}
