/**
 * Bundle overrides: a bundle pinned to chosen devices for a window; while active it beats any
 * release (site/docs/canopy-core/reference/bundle-management/bundle-overrides.md).
 *
 * Overlapping windows: a device may belong to several overrides, but never to two whose windows
 * overlap (409 `bundle_override_overlap`), whether the overlap would come from adding the device
 * or from moving an override's window. Then at most one override is active for a device at any
 * moment and what a device runs never depends on a tie-break. Windows that only touch are fine.
 * Both checks lock the device rows concerned, so two concurrent requests cannot each add half
 * of an overlap.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { devices } from '../devices/schema';
import type { Actor } from '../http/actor';
import { conflict, invalidField, notFound, validationError, type FieldProblem } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import { searchCondition, type SearchFields } from '../search/search';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import { getBundle, getDevice } from '../releases/neighbours';
import { bundleOverrideDevices, bundleOverrides } from './schema';
import { isValidWindow, normaliseInstant, windowsOverlap, type Window } from './windows';

export type BundleOverrideRow = typeof bundleOverrides.$inferSelect;
export type BundleOverrideDeviceRow = typeof bundleOverrideDevices.$inferSelect;

export function bundleOverrideToWire(row: BundleOverrideRow) {
  return {
    prn: resourcePrn(row.organizationId, 'bundle_override', row.id),
    organization_prn: organizationPrn(row.organizationId),
    bundle_prn: resourcePrn(row.organizationId, 'bundle', row.bundleId),
    name: row.name,
    description: row.description,
    starts_at: toRfc3339(row.startsAt),
    ends_at: row.endsAt === null ? null : toRfc3339(row.endsAt),
    ...timestampsOf(row),
  };
}

export function bundleOverrideDeviceToWire(row: BundleOverrideDeviceRow) {
  return {
    bundle_override_prn: resourcePrn(row.organizationId, 'bundle_override', row.bundleOverrideId),
    device_prn: resourcePrn(row.organizationId, 'device', row.deviceId),
    inserted_at: toRfc3339(row.insertedAt),
  };
}

function overrideSearch(organizationId: string): SearchFields {
  return {
    name: { column: bundleOverrides.name, type: 'string', operators: [':', '-', '~'] },
    description: { column: bundleOverrides.description, type: 'string', operators: [':', '-', '~'] },
    bundle_prn: { column: bundleOverrides.bundleId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'bundle', organizationId) },
    starts_at: { column: bundleOverrides.startsAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    ends_at: { column: bundleOverrides.endsAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    inserted_at: { column: bundleOverrides.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: bundleOverrides.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

export interface BundleOverrideFields {
  name?: string;
  description?: string | null;
  bundle_prn?: string;
  starts_at?: string;
  /** Null (or absent on create): no end. */
  ends_at?: string | null;
}

/** The window after the change, both ends checked; 422 naming each bad field. */
function windowOf(input: BundleOverrideFields, current?: Window): Window {
  const problems: FieldProblem[] = [];
  const instant = (field: 'starts_at' | 'ends_at', value: string) => {
    const normal = normaliseInstant(value);
    if (normal === null) problems.push({ field, reason: 'invalid_date_time' });
    return normal ?? '';
  };
  const startsAt = input.starts_at === undefined ? (current?.startsAt ?? '') : instant('starts_at', input.starts_at);
  const endsAt = input.ends_at === undefined ? (current?.endsAt ?? null) : input.ends_at === null ? null : instant('ends_at', input.ends_at);
  const window = { startsAt, endsAt };
  if (problems.length > 0) throw validationError(problems);
  if (!isValidWindow(window)) throw invalidField('ends_at', 'not_after_starts_at');
  return window;
}

export async function createBundleOverride(db: Executor, actor: Actor, input: Required<Pick<BundleOverrideFields, 'name' | 'bundle_prn' | 'starts_at'>> & BundleOverrideFields) {
  const window = windowOf(input);
  const bundle = await getBundle(db, actor, input.bundle_prn, 'bundle_prn');
  const [row] = await db
    .insert(bundleOverrides)
    .values({ id: randomUUID(), organizationId: actor.organizationId, bundleId: bundle.id, name: input.name, description: input.description ?? null, ...window })
    .returning();
  return row;
}

export async function getBundleOverride(db: Executor, actor: Actor, prn: string): Promise<BundleOverrideRow> {
  const id = resourceIdFromPrn(prn, 'bundle_override', actor.organizationId);
  const [row] = id
    ? await db.select().from(bundleOverrides).where(and(eq(bundleOverrides.id, id), eq(bundleOverrides.organizationId, actor.organizationId))).limit(1)
    : [];
  if (!row) throw notFound('bundle_override', prn);
  return row;
}

export async function listBundleOverrides(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(bundleOverrides, page);
  const rows = await db
    .select()
    .from(bundleOverrides)
    .where(combine(eq(bundleOverrides.organizationId, actor.organizationId), where, searchCondition(query.search, overrideSearch(actor.organizationId))))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

/** Locks the devices (in id order, so two such requests cannot deadlock). */
async function lockDevices(tx: Executor, deviceIds: string[]): Promise<void> {
  if (deviceIds.length === 0) return;
  await tx.select({ id: devices.id }).from(devices).where(inArray(devices.id, deviceIds)).orderBy(asc(devices.id)).for('no key update');
}

/** Another override holding one of `deviceIds` whose window overlaps `window`: 409. */
async function refuseOverlap(tx: Executor, actor: Actor, overrideId: string, deviceIds: string[], window: Window): Promise<void> {
  if (deviceIds.length === 0) return;
  const others = await tx
    .select({ override: bundleOverrides, deviceId: bundleOverrideDevices.deviceId })
    .from(bundleOverrideDevices)
    .innerJoin(bundleOverrides, eq(bundleOverrides.id, bundleOverrideDevices.bundleOverrideId))
    .where(and(inArray(bundleOverrideDevices.deviceId, deviceIds), ne(bundleOverrides.id, overrideId)));
  const clash = others.find(({ override }) => windowsOverlap(window, override));
  if (clash) {
    throw conflict('bundle_override_overlap', {
      device_prn: resourcePrn(actor.organizationId, 'device', clash.deviceId),
      bundle_override_prn: resourcePrn(actor.organizationId, 'bundle_override', clash.override.id),
      starts_at: toRfc3339(clash.override.startsAt),
      ends_at: clash.override.endsAt === null ? null : toRfc3339(clash.override.endsAt),
    });
  }
}

async function memberIds(tx: Executor, overrideId: string): Promise<string[]> {
  const rows = await tx.select({ id: bundleOverrideDevices.deviceId }).from(bundleOverrideDevices).where(eq(bundleOverrideDevices.bundleOverrideId, overrideId));
  return rows.map((row) => row.id);
}

export async function updateBundleOverride(db: Database, actor: Actor, prn: string, input: BundleOverrideFields) {
  return db.transaction(async (tx) => {
    const found = await getBundleOverride(tx, actor, prn);
    const [current] = await tx.select().from(bundleOverrides).where(eq(bundleOverrides.id, found.id)).for('update');
    const window = windowOf(input, current);
    const bundleId = input.bundle_prn === undefined ? current.bundleId : (await getBundle(tx, actor, input.bundle_prn, 'bundle_prn')).id;
    const currentEnd = current.endsAt === null ? null : toRfc3339(current.endsAt);
    if (window.startsAt !== toRfc3339(current.startsAt) || window.endsAt !== currentEnd) {
      const members = await memberIds(tx, current.id);
      await lockDevices(tx, members);
      await refuseOverlap(tx, actor, current.id, members, window);
    }
    const [row] = await tx
      .update(bundleOverrides)
      .set({ name: input.name, description: input.description, bundleId, ...window, updatedAt: sql`now()` })
      .where(eq(bundleOverrides.id, current.id))
      .returning();
    return row;
  });
}

export async function deleteBundleOverride(db: Executor, actor: Actor, prn: string): Promise<void> {
  const found = await getBundleOverride(db, actor, prn);
  await db.delete(bundleOverrides).where(eq(bundleOverrides.id, found.id));
}

export async function addOverrideDevice(db: Database, actor: Actor, prn: string, devicePrn: string) {
  return db.transaction(async (tx) => {
    const override = await getBundleOverride(tx, actor, prn);
    const device = await getDevice(tx, actor, devicePrn, 'device_prn');
    await lockDevices(tx, [device.id]);
    // The override's window as committed now: a window PATCH locks this device before it checks.
    const [current] = await tx.select().from(bundleOverrides).where(eq(bundleOverrides.id, override.id)).for('share');
    if (!current) throw notFound('bundle_override', prn);
    await refuseOverlap(tx, actor, current.id, [device.id], current);
    const [row] = await tx
      .insert(bundleOverrideDevices)
      .values({ bundleOverrideId: current.id, deviceId: device.id, organizationId: actor.organizationId })
      .onConflictDoNothing()
      .returning();
    if (!row) throw conflict('device_already_in_bundle_override', { device_prn: devicePrn, bundle_override_prn: prn });
    return row;
  });
}

export async function listOverrideDevices(db: Executor, actor: Actor, prn: string, query: ListQuery) {
  const override = await getBundleOverride(db, actor, prn);
  const page = pageRequest(query);
  const { where, orderBy } = keyset({ insertedAt: bundleOverrideDevices.insertedAt, id: bundleOverrideDevices.deviceId }, page);
  const rows = await db
    .select()
    .from(bundleOverrideDevices)
    .where(combine(eq(bundleOverrideDevices.bundleOverrideId, override.id), where))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(
    rows.map((row) => ({ ...row, id: row.deviceId })),
    page,
  );
}

export async function removeOverrideDevice(db: Executor, actor: Actor, prn: string, devicePrn: string): Promise<void> {
  const override = await getBundleOverride(db, actor, prn);
  const deviceId = resourceIdFromPrn(devicePrn, 'device', actor.organizationId);
  const removed = deviceId
    ? await db
        .delete(bundleOverrideDevices)
        .where(and(eq(bundleOverrideDevices.bundleOverrideId, override.id), eq(bundleOverrideDevices.deviceId, deviceId)))
        .returning()
    : [];
  if (removed.length === 0) throw notFound('device', devicePrn);
}
