/**
 * Legacy deployments (docs: canopy-core/reference/legacy-api/deployments): a firmware of a
 * product offered to that product's devices whose tags and firmware version match its
 * `conditions`. `is_active` and `state` (`on`/`off`) are one setting seen two ways; sending
 * both with different meanings is 422 on `state`. Names are unique within a product (422
 * `taken` on `name`). Every refusal names the field.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import { requireOwnedRow } from '../read-path/owned-rows';
import type { Actor } from '../http/actor';
import { invalidField, notFound, validationError, type FieldProblem } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { isValidRequirement } from '../updates/core/version';
import { products } from '../products/schema';
import { deploymentAttempts, deployments, firmwares } from './schema';

export type DeploymentRow = typeof deployments.$inferSelect;
export type FirmwareRef = Pick<typeof firmwares.$inferSelect, 'uuid'>;

export interface DeploymentInput {
  name?: unknown;
  firmware_uuid?: unknown;
  conditions?: unknown;
  is_active?: unknown;
  state?: unknown;
  delta_updatable?: unknown;
}

const MAX_TAGS = 100;

export function deploymentToWire(row: DeploymentRow, firmwareUuid: string) {
  return {
    prn: resourcePrn(row.organizationId, 'deployment', row.id),
    product_prn: resourcePrn(row.organizationId, 'product', row.productId),
    name: row.name,
    firmware_uuid: firmwareUuid,
    conditions: { version: row.conditionsVersion ?? '', tags: row.conditionsTags },
    is_active: row.isActive,
    state: (row.isActive ? 'on' : 'off') as 'on' | 'off',
    delta_updatable: row.deltaUpdatable,
    inserted_at: toRfc3339(row.insertedAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}

interface Checked {
  name?: string;
  firmwareUuid?: string;
  conditionsVersion?: string | null;
  conditionsTags?: string[];
  isActive?: boolean;
  deltaUpdatable?: boolean;
}

/** Every field's problem at once (422, one entry per field); `required` on create. */
function check(input: DeploymentInput, creating: boolean, firmwareField: string): Checked {
  const problems: FieldProblem[] = [];
  const out: Checked = {};
  if (input.name !== undefined) {
    if (typeof input.name !== 'string') problems.push({ field: 'name', reason: 'invalid_type' });
    else if (input.name.length < 1 || input.name.length > 128) problems.push({ field: 'name', reason: input.name.length < 1 ? 'too_short' : 'too_long', max: 128 });
    else out.name = input.name;
  } else if (creating) problems.push({ field: 'name', reason: 'required' });
  if (input.firmware_uuid !== undefined) {
    if (typeof input.firmware_uuid !== 'string' || input.firmware_uuid.length === 0 || input.firmware_uuid.length > 64) problems.push({ field: firmwareField, reason: 'invalid_type' });
    else out.firmwareUuid = input.firmware_uuid.toLowerCase();
  } else if (creating) problems.push({ field: firmwareField, reason: 'required' });
  if (input.conditions !== undefined && input.conditions !== null) {
    const conditions = input.conditions as Record<string, unknown>;
    if (typeof conditions !== 'object' || Array.isArray(conditions)) problems.push({ field: 'conditions', reason: 'invalid_type' });
    else {
      const version = conditions.version;
      if (version === undefined || version === null || version === '') out.conditionsVersion = null;
      else if (typeof version !== 'string' || version.length > 256 || !isValidRequirement(version)) problems.push({ field: 'conditions.version', reason: 'invalid_requirement' });
      else out.conditionsVersion = version;
      const tags = conditions.tags;
      if (tags === undefined || tags === null) out.conditionsTags = [];
      else if (!Array.isArray(tags) || tags.length > MAX_TAGS || tags.some((tag) => typeof tag !== 'string' || tag.length < 1 || tag.length > 128)) {
        problems.push({ field: 'conditions.tags', reason: 'invalid_tags', max_items: MAX_TAGS, max_length: 128 });
      } else out.conditionsTags = [...new Set(tags as string[])];
    }
  }
  let active: boolean | undefined;
  if (input.is_active !== undefined) {
    if (typeof input.is_active !== 'boolean') problems.push({ field: 'is_active', reason: 'invalid_type' });
    else active = input.is_active;
  }
  if (input.state !== undefined) {
    if (input.state !== 'on' && input.state !== 'off') problems.push({ field: 'state', reason: 'invalid_value', allowed: ['on', 'off'] });
    else if (active !== undefined && active !== (input.state === 'on')) problems.push({ field: 'state', reason: 'contradicts_is_active' });
    else active = input.state === 'on';
  }
  if (active !== undefined) out.isActive = active;
  if (input.delta_updatable !== undefined) {
    if (typeof input.delta_updatable !== 'boolean') problems.push({ field: 'delta_updatable', reason: 'invalid_type' });
    else out.deltaUpdatable = input.delta_updatable;
  }
  if (problems.length > 0) throw validationError(problems);
  return out;
}

async function firmwareOfProduct(db: Executor, actor: Actor, productId: string, uuid: string, field: string) {
  const [row] = await db
    .select({ id: firmwares.id, uuid: firmwares.uuid })
    .from(firmwares)
    .where(and(eq(firmwares.organizationId, actor.organizationId), eq(firmwares.productId, productId), eq(firmwares.uuid, uuid)))
    .limit(1);
  if (!row) throw invalidField(field, 'not_found', { uuid });
  return row;
}

function nameTaken(error: unknown) {
  return isUniqueViolation(error, 'deployments_product_name_unique') ? invalidField('name', 'taken') : error;
}

export async function createDeployment(db: Executor, actor: Actor, productId: string, input: DeploymentInput, firmwareField: string): Promise<{ row: DeploymentRow; firmwareUuid: string }> {
  const fields = check(input, true, firmwareField);
  const firmware = await firmwareOfProduct(db, actor, productId, fields.firmwareUuid!, firmwareField);
  try {
    const [row] = await db
      .insert(deployments)
      .values({
        id: randomUUID(),
        organizationId: actor.organizationId,
        productId,
        name: fields.name!,
        firmwareId: firmware.id,
        conditionsVersion: fields.conditionsVersion ?? null,
        conditionsTags: fields.conditionsTags ?? [],
        isActive: fields.isActive ?? false,
        deltaUpdatable: fields.deltaUpdatable ?? false,
      })
      .returning();
    return { row, firmwareUuid: firmware.uuid };
  } catch (error) {
    throw nameTaken(error);
  }
}

export async function updateDeployment(db: Database, actor: Actor, current: DeploymentRow, input: DeploymentInput, firmwareField: string): Promise<{ row: DeploymentRow; firmwareUuid: string }> {
  const fields = check(input, false, firmwareField);
  const firmware = fields.firmwareUuid ? await firmwareOfProduct(db, actor, current.productId, fields.firmwareUuid, firmwareField) : null;
  try {
    const [row] = await db
      .update(deployments)
      .set({
        name: fields.name,
        firmwareId: firmware?.id,
        conditionsVersion: fields.conditionsVersion,
        conditionsTags: fields.conditionsTags,
        isActive: fields.isActive,
        deltaUpdatable: fields.deltaUpdatable,
        updatedAt: sql`now()`,
      })
      .where(eq(deployments.id, current.id))
      .returning();
    return { row, firmwareUuid: firmware?.uuid ?? (await firmwareUuidOf(db, row)) };
  } catch (error) {
    throw nameTaken(error);
  }
}

export async function firmwareUuidOf(db: Executor, row: DeploymentRow): Promise<string> {
  const [firmware] = await db.select({ uuid: firmwares.uuid }).from(firmwares).where(eq(firmwares.id, row.firmwareId));
  return firmware.uuid;
}

export async function getDeploymentByName(db: Executor, actor: Actor, productId: string, name: string): Promise<DeploymentRow> {
  const [row] = await db
    .select()
    .from(deployments)
    .where(and(eq(deployments.organizationId, actor.organizationId), eq(deployments.productId, productId), eq(deployments.name, name)))
    .limit(1);
  if (!row) throw notFound('deployment');
  return row;
}

export async function getDeploymentByPrn(db: Executor, actor: Actor, prn: string): Promise<DeploymentRow> {
  return requireOwnedRow(db, deployments, 'deployment', actor.organizationId, prn);
}

/** Deployments with their firmware uuid, of one product or (productId null) the organization. */
export async function listDeployments(db: Executor, actor: Actor, productId: string | null, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(deployments, page);
  const rows = await db
    .select({ deployment: deployments, firmwareUuid: firmwares.uuid })
    .from(deployments)
    .innerJoin(firmwares, eq(firmwares.id, deployments.firmwareId))
    .where(combine(eq(deployments.organizationId, actor.organizationId), productId ? eq(deployments.productId, productId) : undefined, where))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  const paged = toPage(
    rows.map((r) => ({ ...r, insertedAt: r.deployment.insertedAt, id: r.deployment.id })),
    page,
  );
  return { items: paged.items.map((r) => deploymentToWire(r.deployment, r.firmwareUuid)), nextPage: paged.nextPage };
}

export async function deleteDeployment(db: Executor, row: DeploymentRow): Promise<void> {
  await db.delete(deployments).where(eq(deployments.id, row.id));
}

/** The product a flat-path create names by `product_prn` (422 on the field otherwise). */
export async function productForCreate(db: Executor, actor: Actor, prn: unknown) {
  if (typeof prn !== 'string' || prn.length === 0) throw invalidField('product_prn', 'required');
  const id = resourceIdFromPrn(prn, 'product', actor.organizationId);
  const [row] = id ? await db.select().from(products).where(and(eq(products.id, id), eq(products.organizationId, actor.organizationId))).limit(1) : [];
  if (!row) throw invalidField('product_prn', 'not_found');
  return row;
}

/** How many update attempts `deviceId` made for the deployment (legacy stats). */
export async function attemptsOf(db: Executor, deploymentId: string, deviceId: string): Promise<number> {
  const [row] = await db
    .select({ attempts: deploymentAttempts.attempts })
    .from(deploymentAttempts)
    .where(and(eq(deploymentAttempts.deploymentId, deploymentId), eq(deploymentAttempts.deviceId, deviceId)));
  return row?.attempts ?? 0;
}
