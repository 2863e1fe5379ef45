/**
 * Cohorts: groups of devices of one product that releases are published to. A cohort never
 * moves to another product (its devices and releases would stop matching it) and is never
 * deleted (release history points at it).
 */
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { invalidField, validationError } from '../http/errors';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { getProduct } from '../products/service';
import { cohorts } from './schema';
import { windowProblems, type MaintenanceWindow } from '../updates/core/window-rule';
import { bumpChainStamp } from '../releases/chain-store';

export type CohortRow = typeof cohorts.$inferSelect;

export function cohortToWire(row: CohortRow) {
  return {
    prn: resourcePrn(row.organizationId, 'cohort', row.id),
    organization_prn: organizationPrn(row.organizationId),
    product_prn: resourcePrn(row.organizationId, 'product', row.productId),
    name: row.name,
    description: row.description,
    maintenance_windows: row.maintenanceWindows ?? null,
    ...timestampsOf(row),
  };
}

/** Per request, because product prns resolve only within the caller's organization. */
function cohortSearch(organizationId: string): SearchFields {
  return {
    name: { column: cohorts.name, type: 'string', operators: [':', '-', '~'] },
    description: { column: cohorts.description, type: 'string', operators: [':', '-', '~'] },
    product_prn: { column: cohorts.productId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'product', organizationId) },
    inserted_at: { column: cohorts.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: cohorts.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

export interface NewCohort {
  name: string;
  description?: string | null;
  product_prn: string;
  maintenance_windows?: MaintenanceWindow[] | null;
}

export async function createCohort(db: Executor, actor: Actor, input: NewCohort) {
  const product = await getProduct(db, actor, input.product_prn, 'product_prn');
  checkWindows(input.maintenance_windows);
  const [row] = await db
    .insert(cohorts)
    .values({ id: randomUUID(), organizationId: actor.organizationId, productId: product.id, name: input.name, description: input.description ?? null, maintenanceWindows: input.maintenance_windows ?? null })
    .returning();
  return row;
}

/** The cohort a prn names in the caller's organization; 404, or 422 on `field` when one is given. */
export function getCohort(db: Executor, actor: Actor, prn: string, field?: string): Promise<CohortRow> {
  return requireOwnedRow(db, cohorts, 'cohort', actor.organizationId, prn, field);
}

export function listCohorts(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, cohorts, actor.organizationId, query, cohortSearch(actor.organizationId));
}

export interface CohortChanges {
  name?: string;
  description?: string | null;
  /** Accepted only unchanged: clients send the whole object back. */
  product_prn?: string;
  maintenance_windows?: MaintenanceWindow[] | null;
}

function checkWindows(windows: unknown): void {
  const problems = windowProblems(windows);
  if (problems.length > 0) throw validationError(problems);
}

export async function updateCohort(db: Executor, actor: Actor, prn: string, changes: CohortChanges) {
  const current = await getCohort(db, actor, prn);
  if (changes.product_prn !== undefined && changes.product_prn !== cohortToWire(current).product_prn) throw invalidField('product_prn', 'immutable');
  const { name, description, maintenance_windows: maintenanceWindows } = changes;
  checkWindows(maintenanceWindows);
  if (name === undefined && description === undefined && maintenanceWindows === undefined) return current;
  const [row] = await db.update(cohorts).set({ name, description, maintenanceWindows, updatedAt: sql`now()` }).where(eq(cohorts.id, current.id)).returning();
  // The update check keeps the windows with the cached chain (updates/chain-cache.ts): move its stamp.
  if (maintenanceWindows !== undefined) await bumpChainStamp(db, current.id);
  return row;
}
