/**
 * Rows of neighbouring contexts that releases, bundle overrides and the update check read by prn.
 * Cohorts and devices come from their own services. ADAPTER (temporary): the bundles service is
 * being built on branch `binaries`; until it lands, `getBundle` reads the bundles table (already
 * on main) directly with the same signature (404, or 422 on `field` when one is given).
 */
import { and, eq } from 'drizzle-orm';
import { bundles } from '../bundles/schema';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { invalidField, notFound } from '../http/errors';
import { resourceIdFromPrn } from '../http/prn';

export { getCohort, type CohortRow } from '../cohorts/service';
export { getDevice, type DeviceRow } from '../devices/service';

export type BundleRow = typeof bundles.$inferSelect;

export async function getBundle(db: Executor, actor: Actor, prn: string, field?: string): Promise<BundleRow> {
  const id = resourceIdFromPrn(prn, 'bundle', actor.organizationId);
  const [row] = id ? await db.select().from(bundles).where(and(eq(bundles.id, id), eq(bundles.organizationId, actor.organizationId))).limit(1) : [];
  if (!row) throw field ? invalidField(field, 'not_found') : notFound('bundle', prn);
  return row;
}
