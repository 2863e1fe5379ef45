/**
 * Devices: identifier unique per organization, a product, optionally a cohort of that product.
 * Every PATCH that changes something records `device.updated` in the same transaction, with the
 * device as it now is and the wire names of the fields that changed.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { invalidField, notFound } from '../http/errors';
import { listOwnedJson, requireOwnedJson, type WireSource } from '../read-path/owned-json';
import { requireOwnedRow } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { organizationPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import { cohortForDevice, lockProduct, productForDevice } from './placement';
import { DEVICE_ROW_COLUMNS, devices, type DeviceRow } from './schema';
import { deviceSearchCondition } from './search';

export type { DeviceRow };

export function deviceToWire(row: DeviceRow) {
  return {
    prn: resourcePrn(row.organizationId, 'device', row.id),
    organization_prn: organizationPrn(row.organizationId),
    identifier: row.identifier,
    product_prn: resourcePrn(row.organizationId, 'product', row.productId),
    cohort_prn: row.cohortId === null ? null : resourcePrn(row.organizationId, 'cohort', row.cohortId),
    description: row.description,
    quarantined: row.quarantined,
    archived: row.archived,
    tags: row.tags,
    target: row.target,
    last_connected_at: toRfc3339(row.lastConnectedAt),
    reported_bundle_prn: row.reportedBundlePrn,
    reported_release_prn: row.reportedReleasePrn,
    reported_release_version: row.reportedReleaseVersion,
    ...timestampsOf(row),
  };
}

/** The fields a caller sets directly (the reported_* and last_connected_at come from the device). */
export interface DeviceFields {
  identifier?: string;
  description?: string | null;
  quarantined?: boolean;
  archived?: boolean;
  tags?: string[] | null;
  target?: string | null;
}

function identifierTaken(error: unknown) {
  return isUniqueViolation(error, 'devices_org_identifier_unique') ? invalidField('identifier', 'taken') : error;
}

export interface NewDevice extends DeviceFields {
  identifier: string;
  product_prn: string;
  cohort_prn?: string | null;
}

/** 422 `product_prn` `archived` under an archived product: it could never be unarchived there. */
export async function createDevice(db: Database, actor: Actor, input: NewDevice) {
  return db.transaction(async (tx) => {
    const productId = await productForDevice(tx, actor, input.product_prn);
    const cohortId = input.cohort_prn ? await cohortForDevice(tx, actor, input.cohort_prn, productId) : null;
    const { identifier, description = null, quarantined = false, archived = false, tags = null, target = null } = input;
    try {
      const [row] = await tx
        .insert(devices)
        .values({ id: randomUUID(), organizationId: actor.organizationId, productId, cohortId, identifier, description, quarantined, archived, tags, target })
        .returning();
      return row;
    } catch (error) {
      throw identifierTaken(error);
    }
  });
}

/** For contexts that hold a device id already (device API, certificates); null when there is none. */
export async function findDeviceById(db: Executor, organizationId: string, id: string): Promise<DeviceRow | null> {
  const [row] = await db.select(DEVICE_ROW_COLUMNS).from(devices).where(and(eq(devices.id, id), eq(devices.organizationId, organizationId))).limit(1);
  return row ?? null;
}

/** The device a prn names in the caller's organization; 404, or 422 on `field` when one is given. */
export function getDevice(db: Executor, actor: Actor, prn: string, field?: string): Promise<DeviceRow> {
  return requireOwnedRow(db, devices, 'device', actor.organizationId, prn, field);
}

/** getDevice as wire JSON text, for GET /devices/{prn}. */
export function getDeviceJson(db: Executor, source: WireSource, actor: Actor, prn: string): Promise<string> {
  return requireOwnedJson(db, source, actor.organizationId, prn);
}

/** listDevices as wire JSON text, for GET /devices. */
export function listDevicesJson(db: Executor, source: WireSource, actor: Actor, query: ListQuery) {
  return listOwnedJson(db, source, actor.organizationId, query, (search) => deviceSearchCondition(search, actor.organizationId));
}

export interface DeviceChanges extends DeviceFields {
  product_prn?: string;
  cohort_prn?: string | null;
}

/**
 * The product and cohort after a PATCH. Moving to another product keeps the cohort only if
 * `cohort_prn` is sent too (a cohort belongs to one product): otherwise 422 `not_in_product`.
 * Unarchiving a device of an archived product is 422 `archived` `product_archived`.
 */
async function placementAfter(tx: Executor, actor: Actor, current: DeviceRow, changes: DeviceChanges) {
  const currentProductPrn = resourcePrn(current.organizationId, 'product', current.productId);
  const moving = changes.product_prn !== undefined && changes.product_prn !== currentProductPrn;
  const productId = moving ? await productForDevice(tx, actor, changes.product_prn!) : current.productId;
  if (!moving && changes.archived === false && current.archived && (await lockProduct(tx, actor, currentProductPrn)).archived) {
    throw invalidField('archived', 'product_archived');
  }
  if (changes.cohort_prn !== undefined) {
    return { productId, cohortId: changes.cohort_prn === null ? null : await cohortForDevice(tx, actor, changes.cohort_prn, productId) };
  }
  if (moving && current.cohortId !== null) throw invalidField('cohort_prn', 'not_in_product');
  return { productId, cohortId: current.cohortId };
}

/** Wire names of the fields whose value differs (updated_at always does, so it is left out). */
function changedFields(before: DeviceRow, after: DeviceRow): string[] {
  const a = deviceToWire(before) as Record<string, unknown>;
  const b = deviceToWire(after) as Record<string, unknown>;
  return Object.keys(b).filter((key) => key !== 'updated_at' && !isDeepStrictEqual(a[key], b[key]));
}

/** A PATCH that changes nothing writes nothing: no updated_at bump, no event. */
export async function updateDevice(db: Database, actor: Actor, prn: string, changes: DeviceChanges) {
  return db.transaction(async (tx) => {
    const { id } = await getDevice(tx, actor, prn);
    // Locked, so two PATCHes of one device each report what they changed.
    const [current] = await tx.select(DEVICE_ROW_COLUMNS).from(devices).where(eq(devices.id, id)).for('update');
    if (!current) throw notFound('device', prn);
    const { identifier, description, quarantined, archived, tags, target } = changes;
    const columns = { identifier, description, quarantined, archived, tags, target, ...(await placementAfter(tx, actor, current, changes)) };
    const defined = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
    const changed = changedFields(current, { ...current, ...defined });
    if (changed.length === 0) return current;
    let row: DeviceRow;
    try {
      [row] = await tx.update(devices).set({ ...defined, updatedAt: sql`now()` }).where(eq(devices.id, id)).returning();
    } catch (error) {
      throw identifierTaken(error);
    }
    const device = deviceToWire(row);
    await recordEvent(tx, {
      organizationId: actor.organizationId,
      type: 'device',
      subtype: 'updated',
      actorPrn: actor.prn,
      resourcePrn: device.prn,
      data: { device, changes: changed },
    });
    return row;
  });
}

export async function deleteDevice(db: Executor, actor: Actor, prn: string): Promise<void> {
  const current = await getDevice(db, actor, prn);
  await db.delete(devices).where(eq(devices.id, current.id));
}
