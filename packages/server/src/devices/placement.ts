/**
 * Where a device sits: its product and, optionally, a cohort of that same product. Checked on
 * create and on every PATCH that moves a device, inside the write's transaction.
 */
import { eq } from 'drizzle-orm';
import { getCohort } from '../cohorts/service';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { invalidField } from '../http/errors';
import { products } from '../products/schema';
import { getProduct } from '../products/service';

/**
 * The product's id, share-locked until the transaction ends: archiving a product takes the
 * row lock for update, so it waits for this device write and then sees the device (and a
 * device write waiting here sees the product already archived).
 */
export async function lockProduct(tx: Executor, actor: Actor, productPrn: string): Promise<{ id: string; archived: boolean }> {
  const product = await getProduct(tx, actor, productPrn, 'product_prn');
  const [locked] = await tx.select({ id: products.id, archived: products.archived }).from(products).where(eq(products.id, product.id)).for('share');
  if (!locked) throw invalidField('product_prn', 'not_found');
  return locked;
}

/** A product prn that may take a new or moved device: 422 `archived` when it is archived. */
export async function productForDevice(tx: Executor, actor: Actor, productPrn: string): Promise<string> {
  const product = await lockProduct(tx, actor, productPrn);
  if (product.archived) throw invalidField('product_prn', 'archived');
  return product.id;
}

/** The cohort's id; 422 `not_found`, or `not_in_product` when it groups another product's devices. */
export async function cohortForDevice(tx: Executor, actor: Actor, cohortPrn: string, productId: string): Promise<string> {
  const cohort = await getCohort(tx, actor, cohortPrn, 'cohort_prn');
  if (cohort.productId !== productId) throw invalidField('cohort_prn', 'not_in_product');
  return cohort.id;
}
