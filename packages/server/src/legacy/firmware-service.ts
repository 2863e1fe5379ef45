/**
 * Legacy firmware: fwup archives uploaded whole (docs: canopy-core/reference/legacy-api/firmware).
 *
 * The upload's steps are ordered so a refused archive leaves no blob and no row: the body streams
 * to a temporary file (firmware-intake.ts); `meta.conf` and its `.ed25519` signature are read
 * (fwup-archive.ts) and verified against the organization's signing keys (else 500
 * `invalid_signature`, the public API's answer, kept for its clients); meta.conf is parsed (422)
 * and its meta-product must be the product's (422); the archive is copied to the blob store, then
 * the row inserted (a duplicate meta-uuid: 409, the blob deleted). A sweep job removes the blob of
 * a process killed in between (firmware-upload-sweep.ts); `ttl` expiry is firmware-expiry.ts.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { requireOwnedRow } from '../read-path/owned-rows';
import { isUniqueViolation } from '../db/errors';
import type { Actor } from '../http/actor';
import { ApiError, conflict, invalidField, notFound } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Platform } from '../platform';
import { products } from '../products/schema';
import { signingKeys } from '../signing-keys/schema';
import { blobDownloadPath } from '../storage/download-routes';
import { enqueueJob } from '../workers/queue';
import { verifyingKey } from './archive-signature';
import { holdUploadBlob } from './firmware-upload-sweep';
import type { FirmwareIntake } from './firmware-intake';
import { readFwupArchive, type ArchiveProblem } from './fwup-archive';
import { parseMetaConf } from './meta-conf';
import { deployments, firmwares } from './schema';
import type { ProductRow } from './scope';

export type FirmwareRow = typeof firmwares.$inferSelect;
export const FIRMWARE_EXPIRY_JOB = 'legacy_firmware_expiry';
/** Download URLs of firmware live as long as binaries' (24 hours). */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** The one answer of the legacy API that is not the usual error shape (the public API's own). */
export class InvalidSignature extends Error {
  readonly status = 500;
  body() {
    return { errors: { detail: 'invalid_signature' } };
  }
}

const ARCHIVE_REASONS: Record<ArchiveProblem, string> = {
  empty: 'empty_file',
  not_a_zip: 'not_a_fwup_archive',
  missing_meta_conf: 'missing_meta_conf',
  meta_conf_too_large: 'meta_conf_too_large',
  too_many_entries: 'too_many_entries',
  directory_too_large: 'zip_directory_too_large',
  duplicate_entry: 'duplicate_entry',
  crc_mismatch: 'crc_mismatch',
};

export function firmwareMeta(row: FirmwareRow) {
  return {
    architecture: row.architecture,
    author: row.author,
    description: row.description,
    fwup_version: row.fwupVersion,
    misc: row.misc,
    platform: row.platform,
    product: null as string | null,
    uuid: row.uuid,
    vcs_identifier: row.vcsIdentifier,
    version: row.version,
  };
}

export function firmwareToWire(row: FirmwareRow, productName: string) {
  return {
    prn: resourcePrn(row.organizationId, 'firmware', row.id),
    product_prn: resourcePrn(row.organizationId, 'product', row.productId),
    uuid: row.uuid,
    version: row.version,
    platform: row.platform,
    architecture: row.architecture,
    author: row.author,
    description: row.description,
    vcs_identifier: row.vcsIdentifier,
    misc: row.misc,
    fwup_version: row.fwupVersion,
    product: productName,
    size: row.size,
    ttl: row.ttlSeconds,
    expires_at: row.expiresAt === null ? null : toRfc3339(row.expiresAt),
    inserted_at: toRfc3339(row.insertedAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}

export async function productNameOf(db: Executor, productId: string): Promise<string> {
  const [row] = await db.select({ name: products.name }).from(products).where(eq(products.id, productId));
  return row.name;
}

export async function firmwareUrl(platform: Platform, row: FirmwareRow): Promise<string> {
  const ttl = platform.config.downloadUrlTtlSeconds;
  return (await platform.blobs.presignDownload(row.blobKey, ttl)) ?? platform.urls.sign('download', blobDownloadPath(row.blobKey), ttl);
}

function parseTtl(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  if (!/^\d{1,10}$/.test(value.trim())) throw invalidField('ttl', 'not_an_integer');
  const ttl = Number(value.trim());
  if (ttl < 1 || ttl > MAX_TTL_SECONDS) throw invalidField('ttl', 'out_of_range', { min: 1, max: MAX_TTL_SECONDS });
  return ttl;
}

export async function createFirmware(platform: Platform, actor: Actor, product: ProductRow, intake: FirmwareIntake): Promise<FirmwareRow> {
  const ttl = parseTtl(intake.fields.ttl);
  const file = intake.file;
  if (!file) throw invalidField('firmware', 'required');
  const archive = await readFwupArchive(file.path, file.size, { maxEntries: platform.config.firmwareMaxEntries });
  if (!archive.ok) {
    const { reason, ok: _, ...detail } = archive;
    throw invalidField('firmware', ARCHIVE_REASONS[reason], detail);
  }
  const keys = await platform.db.select({ id: signingKeys.id, value: signingKeys.value }).from(signingKeys).where(eq(signingKeys.organizationId, actor.organizationId));
  if (!verifyingKey(archive.metaConf, archive.signature, keys)) throw new InvalidSignature();
  const meta = parseMetaConf(archive.metaConf.toString('utf8'));
  if (!meta.ok) throw invalidField('firmware', `meta_conf_${meta.reason}`, { ...(meta.key ? { key: meta.key } : {}), ...(meta.line ? { line: meta.line } : {}) });
  if (meta.fields['meta-product'] !== product.name) {
    throw invalidField('firmware', 'product_mismatch', { meta_product: meta.fields['meta-product'], product: product.name });
  }
  const uuid = meta.fields['meta-uuid']!;
  const [existing] = await platform.db.select({ id: firmwares.id }).from(firmwares).where(and(eq(firmwares.organizationId, actor.organizationId), eq(firmwares.uuid, uuid))).limit(1);
  if (existing) throw conflict('firmware_exists', { uuid });

  const id = randomUUID();
  const blobKey = `legacy-firmware/${actor.organizationId}/${id}.fw`;
  // A kill between the copy and the row would leave the archive in the store with nothing
  // naming it: a durable sweep job covers that window (firmware-upload-sweep.ts).
  const hold = await holdUploadBlob(platform.db, id, blobKey, (error) => platform.log.warn({ err: error }, 'could not hold a firmware upload\'s sweep job back'));
  try {
    await platform.blobs.put(blobKey, fs.createReadStream(file.path), file.size);
  } catch (error) {
    hold.stop();
    await platform.blobs.delete(blobKey).catch(() => {});
    await hold.abandon(platform.db).catch(() => {});
    throw error;
  }
  hold.stop();
  try {
    return await platform.db.transaction(async (tx) => {
      await hold.release(tx);
      const [row] = await tx
        .insert(firmwares)
        .values({
          id,
          organizationId: actor.organizationId,
          productId: product.id,
          uuid,
          version: meta.fields['meta-version']!,
          platform: meta.fields['meta-platform'],
          architecture: meta.fields['meta-architecture'],
          author: meta.fields['meta-author'],
          description: meta.fields['meta-description'],
          vcsIdentifier: meta.fields['meta-vcs-identifier'],
          misc: meta.fields['meta-misc'],
          fwupVersion: meta.fields['meta-fwup-version'],
          size: file.size,
          sha256: file.sha256,
          blobKey,
          ttlSeconds: ttl,
          expiresAt: ttl === null ? null : sql`now() + make_interval(secs => ${ttl})`,
        })
        .returning();
      if (row.expiresAt !== null) {
        await enqueueJob(tx, { kind: FIRMWARE_EXPIRY_JOB, key: `legacy-firmware-expiry:${row.id}`, payload: { firmware_id: row.id, organization_id: row.organizationId }, runAt: new Date(toRfc3339(row.expiresAt)) });
      }
      return row;
    });
  } catch (error) {
    await platform.blobs.delete(blobKey).catch(() => {});
    await hold.abandon(platform.db).catch(() => {});
    if (isUniqueViolation(error)) throw conflict('firmware_exists', { uuid });
    throw error;
  } finally {
    if (ttl !== null) platform.jobs.wake();
  }
}

/** The firmware of `product` with this uuid; 404 otherwise (another product's or organization's too). */
export async function getFirmwareByUuid(db: Executor, actor: Actor, productId: string | null, uuid: string): Promise<FirmwareRow> {
  const [row] = await db
    .select()
    .from(firmwares)
    .where(and(eq(firmwares.organizationId, actor.organizationId), eq(firmwares.uuid, uuid.toLowerCase()), productId ? eq(firmwares.productId, productId) : undefined))
    .limit(1);
  if (!row) throw notFound('firmware', uuid);
  return row;
}

export async function getFirmwareByPrn(db: Executor, actor: Actor, prn: string): Promise<FirmwareRow> {
  return requireOwnedRow(db, firmwares, 'firmware', actor.organizationId, prn);
}

/** A product's firmware (all of the organization's with productId null), keyset-paged like every list. */
export async function listFirmware(db: Executor, actor: Actor, productId: string | null, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(firmwares, page);
  const rows = await db
    .select()
    .from(firmwares)
    .where(combine(eq(firmwares.organizationId, actor.organizationId), productId ? eq(firmwares.productId, productId) : undefined, where))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

/** Deletes the row, then the blob. A firmware a deployment uses is 409 `firmware_in_use`. */
export async function deleteFirmware(platform: Platform, actor: Actor, row: FirmwareRow): Promise<void> {
  await platform.db.transaction(async (tx) => {
    const [used] = await tx.select({ id: deployments.id, name: deployments.name }).from(deployments).where(eq(deployments.firmwareId, row.id)).limit(1);
    if (used) throw conflict('firmware_in_use', { uuid: row.uuid, deployment: used.name });
    await tx.delete(firmwares).where(and(eq(firmwares.id, row.id), eq(firmwares.organizationId, actor.organizationId)));
  });
  await platform.blobs.delete(row.blobKey).catch(() => {});
}

/** Expired, and no deployment uses it: delete (the expiry job). Answers whether it was deleted. */
export async function expireFirmware(platform: Platform, firmwareId: string): Promise<boolean> {
  const deleted = await platform.db.transaction(async (tx) => {
    const [row] = await tx.select().from(firmwares).where(and(eq(firmwares.id, firmwareId), lt(firmwares.expiresAt, sql`now()`))).for('update');
    if (!row) return null;
    const [used] = await tx.select({ id: deployments.id }).from(deployments).where(eq(deployments.firmwareId, row.id)).limit(1);
    if (used) return null;
    await tx.delete(firmwares).where(eq(firmwares.id, row.id));
    return row;
  });
  if (deleted) await platform.blobs.delete(deleted.blobKey).catch(() => {});
  return deleted !== null;
}
