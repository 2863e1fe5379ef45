/**
 * The legacy API's organization-scoped paths name the organization and product by name
 * (`/orgs/{org_name}/products/{product_name}/...`). A key works only on its own organization's
 * name: any other name is 404, exactly like a name that does not exist, so nothing leaks.
 */
import { and, eq } from 'drizzle-orm';
import { organizations } from '../accounts/schema';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { notFound } from '../http/errors';
import { products } from '../products/schema';

export type ProductRow = typeof products.$inferSelect;

export async function requireOrganizationNamed(db: Executor, actor: Actor, orgName: string): Promise<void> {
  const [row] = await db.select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, actor.organizationId), eq(organizations.name, orgName))).limit(1);
  if (!row) throw notFound('organization');
}

export async function requireProductNamed(db: Executor, actor: Actor, orgName: string, productName: string): Promise<ProductRow> {
  await requireOrganizationNamed(db, actor, orgName);
  const [row] = await db.select().from(products).where(and(eq(products.organizationId, actor.organizationId), eq(products.name, productName))).limit(1);
  if (!row) throw notFound('product');
  return row;
}
