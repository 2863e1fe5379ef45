/**
 * ADAPTER (temporary): rows of neighbouring contexts that releases, bundle overrides and the
 * update check read by prn. The cohorts and devices services are being finished on main and the
 * bundles service on branch `binaries`; until they land, these read the tables (which already
 * exist on main) directly. Replace each body with a call to that context's `get…` once merged:
 * the signatures match theirs (404, or 422 on `field` when one is given).
 */
import { and, eq } from 'drizzle-orm';
import { bundles } from '../bundles/schema';
import { cohorts } from '../cohorts/schema';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import type { Actor } from '../http/actor';
import { invalidField, notFound } from '../http/errors';
import { resourceIdFromPrn, type PrnType } from '../http/prn';

export type CohortRow = typeof cohorts.$inferSelect;
export type DeviceRow = typeof devices.$inferSelect;
export type BundleRow = typeof bundles.$inferSelect;

type Table = typeof cohorts | typeof devices | typeof bundles;

async function byPrn<Row>(db: Executor, table: Table, type: PrnType, actor: Actor, prn: string, field?: string): Promise<Row> {
  const id = resourceIdFromPrn(prn, type, actor.organizationId);
  const [row] = id ? await db.select().from(table as typeof cohorts).where(and(eq(table.id, id), eq(table.organizationId, actor.organizationId))).limit(1) : [];
  if (!row) throw field ? invalidField(field, 'not_found') : notFound(type, prn);
  return row as Row;
}

export const getCohort = (db: Executor, actor: Actor, prn: string, field?: string) => byPrn<CohortRow>(db, cohorts, 'cohort', actor, prn, field);
export const getDevice = (db: Executor, actor: Actor, prn: string, field?: string) => byPrn<DeviceRow>(db, devices, 'device', actor, prn, field);
export const getBundle = (db: Executor, actor: Actor, prn: string, field?: string) => byPrn<BundleRow>(db, bundles, 'bundle', actor, prn, field);
