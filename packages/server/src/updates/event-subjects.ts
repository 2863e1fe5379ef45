/**
 * The objects the update check's device events name, in the public API's shapes
 * (docs: canopy-core/reference/integration-management/events):
 *
 *   device           {prn, identifier, cohort: {cohort_prn, cohort_name} | null}
 *   checked_for_release  release {prn, version} | null, bundle {prn, name} | null
 *   release_changed  from_release {prn, version} | null, to_release {prn, version, known} | null,
 *                    from_bundle {prn} | null, to_bundle {prn, known} | null
 *
 * Their names and versions (device identifier, cohort name, release version, bundle name) come
 * from a per-process cache kept SUBJECT_TTL_MS, loaded with one query per kind for the ids a
 * check misses: the update check is the hot path and these change rarely, so a check costs no
 * extra round trip once the fleet's cohorts and releases are known. A rename shows in events
 * within SUBJECT_TTL_MS. `known` is whether the reported release or bundle exists in the
 * organization (a device may report one that was deleted, or never existed).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { bundles } from '../bundles/schema';
import { cohorts } from '../cohorts/schema';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { releases } from '../releases/schema';

export const SUBJECT_TTL_MS = 5_000;
const MAX_ENTRIES = 50_000;

type Kind = 'device' | 'cohort' | 'release' | 'bundle';
/** The name (identifier, version) or null when the row exists without one; undefined: no such row. */
type Entry = { value: string | null; exists: boolean; expiresAt: number };

const caches = new WeakMap<object, Map<string, Entry>>();

function cacheOf(db: Executor): Map<string, Entry> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

async function loadKind(db: Executor, kind: Kind, organizationId: string, ids: string[]): Promise<Map<string, string | null>> {
  const rows =
    kind === 'device'
      ? await db.select({ id: devices.id, value: devices.identifier }).from(devices).where(and(eq(devices.organizationId, organizationId), inArray(devices.id, ids)))
      : kind === 'cohort'
        ? await db.select({ id: cohorts.id, value: cohorts.name }).from(cohorts).where(and(eq(cohorts.organizationId, organizationId), inArray(cohorts.id, ids)))
        : kind === 'release'
          ? await db.select({ id: releases.id, value: releases.version }).from(releases).where(and(eq(releases.organizationId, organizationId), inArray(releases.id, ids)))
          : await db.select({ id: bundles.id, value: bundles.name }).from(bundles).where(and(eq(bundles.organizationId, organizationId), inArray(bundles.id, ids)));
  return new Map(rows.map((row) => [row.id, row.value]));
}

export interface SubjectLookup {
  get(kind: Kind, id: string): Entry | undefined;
}

/** Loads what the cache lacks of `wanted` (ids per kind) and answers a lookup over all of it. */
export async function loadSubjects(db: Executor, organizationId: string, wanted: Partial<Record<Kind, (string | null)[]>>): Promise<SubjectLookup> {
  const cache = cacheOf(db);
  const now = Date.now();
  const misses: [Kind, string[]][] = [];
  for (const [kind, ids] of Object.entries(wanted) as [Kind, (string | null)[]][]) {
    const missing = [...new Set(ids.filter((id): id is string => id !== null))].filter((id) => {
      const hit = cache.get(`${kind}:${id}`);
      return !hit || hit.expiresAt <= now;
    });
    if (missing.length > 0) misses.push([kind, missing]);
  }
  if (misses.length > 0) {
    const loaded = await Promise.all(misses.map(([kind, ids]) => loadKind(db, kind, organizationId, ids)));
    if (cache.size > MAX_ENTRIES) cache.clear();
    misses.forEach(([kind, ids], i) => {
      for (const id of ids) {
        const found = loaded[i].has(id);
        cache.set(`${kind}:${id}`, { value: found ? (loaded[i].get(id) ?? null) : null, exists: found, expiresAt: now + SUBJECT_TTL_MS });
      }
    });
  }
  return { get: (kind, id) => cache.get(`${kind}:${id}`) };
}

export interface SubjectDevice {
  id: string;
  organizationId: string;
  cohortId: string | null;
}

export function deviceObject(lookup: SubjectLookup, device: SubjectDevice) {
  const org = device.organizationId;
  return {
    prn: resourcePrn(org, 'device', device.id),
    identifier: lookup.get('device', device.id)?.value ?? null,
    cohort: device.cohortId === null ? null : { cohort_prn: resourcePrn(org, 'cohort', device.cohortId), cohort_name: lookup.get('cohort', device.cohortId)?.value ?? null },
  };
}

export function releaseObject(lookup: SubjectLookup, organizationId: string, releaseId: string | null) {
  return releaseId === null ? null : { prn: resourcePrn(organizationId, 'release', releaseId), version: lookup.get('release', releaseId)?.value ?? null };
}

export function bundleObject(lookup: SubjectLookup, organizationId: string, bundleId: string | null) {
  return bundleId === null ? null : { prn: resourcePrn(organizationId, 'bundle', bundleId), name: lookup.get('bundle', bundleId)?.value ?? null };
}

/** A reported release prn as release_changed shows it: its version, and whether it exists here. */
export function reportedRelease(lookup: SubjectLookup, organizationId: string, prn: string | null, withKnown: boolean) {
  if (prn === null) return null;
  const id = resourceIdFromPrn(prn, 'release', organizationId);
  const entry = id ? lookup.get('release', id) : undefined;
  const base = { prn, version: entry?.value ?? null };
  return withKnown ? { ...base, known: entry?.exists ?? false } : base;
}

export function reportedBundle(lookup: SubjectLookup, organizationId: string, prn: string | null, withKnown: boolean) {
  if (prn === null) return null;
  if (!withKnown) return { prn };
  const id = resourceIdFromPrn(prn, 'bundle', organizationId);
  return { prn, known: (id ? lookup.get('bundle', id)?.exists : false) ?? false };
}

/** The ids a reported prn names in the organization (null for another's, or not a prn). */
export function idOf(prn: string | null | undefined, type: 'release' | 'bundle', organizationId: string): string | null {
  return prn ? (resourceIdFromPrn(prn, type, organizationId) ?? null) : null;
}
