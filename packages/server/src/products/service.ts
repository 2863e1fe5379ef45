/**
 * Products: the top of the hierarchy (product -> cohorts -> devices). A product cannot be
 * archived while it still has unarchived devices.
 */
import { organizationPrn, resourcePrn } from '../core/prn';
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { firmwares } from '../legacy/schema';
import type { Actor } from '../http/actor';
import { conflict, invalidField } from '../http/errors';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import type { SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { isUniqueViolation } from '../db/errors';
import { products } from './schema';

export type ProductRow = typeof products.$inferSelect;

export function productToWire(row: ProductRow) {
  return {
    prn: resourcePrn(row.organizationId, 'product', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    archived: row.archived,
    ...timestampsOf(row),
  };
}

export const PRODUCT_SEARCH: SearchFields = {
  name: { column: products.name, type: 'string', operators: [':', '-', '~'] },
  archived: { column: products.archived, type: 'boolean', operators: [':'] },
  inserted_at: { column: products.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  updated_at: { column: products.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

function nameTaken(error: unknown) {
  return isUniqueViolation(error, 'products_org_name_unique') ? invalidField('name', 'taken') : error;
}

export async function createProduct(db: Executor, actor: Actor, input: { name: string; archived?: boolean }) {
  try {
    const [row] = await db
      .insert(products)
      .values({ id: randomUUID(), organizationId: actor.organizationId, name: input.name, archived: input.archived ?? false })
      .returning();
    return row;
  } catch (error) {
    throw nameTaken(error);
  }
}

/** The product a prn names in the caller's organization; 404 (or 422 on `field`) for any other prn. */
export function getProduct(db: Executor, actor: Actor, prn: string, field?: string): Promise<ProductRow> {
  return requireOwnedRow(db, products, 'product', actor.organizationId, prn, field);
}

export function listProducts(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, products, actor.organizationId, query, PRODUCT_SEARCH);
}

export async function updateProduct(db: Database, actor: Actor, prn: string, changes: { name?: string; archived?: boolean }) {
  return db.transaction(async (tx) => {
    const product = await getProduct(tx, actor, prn);
    // Lock the product row so a device created concurrently cannot slip in under an archive.
    await tx.execute(sql`select 1 from ${products} where ${products.id} = ${product.id} for update`);
    if (changes.archived === true && !product.archived) {
      const [active] = await tx
        .select({ id: devices.id })
        .from(devices)
        .where(and(eq(devices.productId, product.id), eq(devices.archived, false)))
        .limit(1);
      if (active) throw conflict('product_has_active_devices', { prn });
      // Spec 1 section 4: a product with firmware cannot be archived either (legacy firmware).
      const [firmware] = await tx.select({ id: firmwares.id }).from(firmwares).where(eq(firmwares.productId, product.id)).limit(1);
      if (firmware) throw conflict('product_has_firmware', { prn });
    }
    try {
      const [row] = await tx
        .update(products)
        .set({ ...changes, updatedAt: sql`now()` })
        .where(eq(products.id, product.id))
        .returning();
      return row;
    } catch (error) {
      throw nameTaken(error);
    }
  });
}

/** A product by its name (unique within an organization); null when there is none. */
export async function findProductByName(db: Executor, organizationId: string, name: string): Promise<ProductRow | null> {
  const [row] = await db.select().from(products).where(and(eq(products.organizationId, organizationId), eq(products.name, name))).limit(1);
  return row ?? null;
}
