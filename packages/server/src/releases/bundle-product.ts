/**
 * A bundle serves one product. Bundles and artifacts name no product of their own, so a bundle's
 * product is that of the cohorts it is already released to: releasing it to a cohort of another
 * product is refused, since that product's devices would be offered another product's software
 * (the mistake a bundle prn left over from another guide made easy). A bundle for the other
 * product is made from the same artifact versions.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { resourcePrn } from '../core/prn';
import { invalidField } from '../http/errors';
import { cohorts } from '../cohorts/schema';
import { releases } from './schema';

/** Refuses `bundleId` for a release in `cohortId` when another product's cohort has a release of it. */
export async function checkBundleProduct(tx: Executor, organizationId: string, bundleId: string, cohortId: string): Promise<void> {
  // Two releases of one bundle made at once for two products must not both pass. An advisory lock
  // on the bundle, not its row: a release insert takes a key-share lock on that row (its foreign
  // key) while holding its cohort's chain lock, so locking the row here could deadlock.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('release-bundle:' || ${bundleId}))`);
  const product = tx.select({ productId: cohorts.productId }).from(cohorts).where(eq(cohorts.id, cohortId));
  const [other] = await tx
    .select({ productId: cohorts.productId })
    .from(releases)
    .innerJoin(cohorts, eq(cohorts.id, releases.cohortId))
    .where(and(eq(releases.bundleId, bundleId), ne(cohorts.productId, product)))
    .limit(1);
  if (other) {
    throw invalidField('bundle_prn', 'released_to_other_product', { product_prn: resourcePrn(organizationId, 'product', other.productId) });
  }
}
