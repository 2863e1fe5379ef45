/** A cohort's stored maintenance windows (rollouts/window-rule.ts); null = always open. */
import { eq } from 'drizzle-orm';
import { cohorts } from '../cohorts/schema';
import type { Executor } from '../db/connection';
import type { MaintenanceWindow } from '../updates/core/window-rule';

export async function cohortWindowsOf(db: Executor, cohortId: string): Promise<MaintenanceWindow[] | null> {
  const [cohort] = await db.select({ windows: cohorts.maintenanceWindows }).from(cohorts).where(eq(cohorts.id, cohortId));
  return cohort?.windows ?? null;
}
