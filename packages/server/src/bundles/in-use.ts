/**
 * Whether a release or a bundle override uses a bundle, which forbids deleting it (409
 * `bundle_in_use`). Runs inside the delete's transaction with the bundle row locked; releases
 * and overrides reference the bundle by foreign key, so one created meanwhile waits on that lock
 * and then fails its key check rather than pointing at a deleted bundle. Both lookups use an
 * index on bundle_id (releases_bundle, bundle_overrides_bundle).
 */
import { eq, sql } from 'drizzle-orm';
import { bundleOverrides } from '../bundle-overrides/schema';
import type { Executor } from '../db/connection';
import { releases } from '../releases/schema';

export async function bundleInUse(tx: Executor, bundleId: string): Promise<boolean> {
  const [row] = await tx
    .select({
      used: sql<boolean>`exists (select 1 from ${releases} where ${releases.bundleId} = ${bundleId})
        or exists (select 1 from ${bundleOverrides} where ${bundleOverrides.bundleId} = ${bundleId})`,
    })
    .from(sql`(select 1) as one`);
  return row?.used === true;
}
