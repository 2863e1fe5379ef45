/**
 * Whether a release uses a bundle, which forbids deleting it (409 `bundle_in_use`).
 *
 * TODO(releases): the releases table is not on this branch yet. The releases context completes
 * this function (a lookup in its own table, e.g. `select 1 from releases where bundle_id = $1`),
 * keeping its signature: it runs inside the delete's transaction with the bundle row locked.
 */
import type { Executor } from '../db/connection';

export async function bundleInUse(_tx: Executor, _bundleId: string): Promise<boolean> {
  return false;
}
