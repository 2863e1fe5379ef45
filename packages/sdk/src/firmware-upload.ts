/**
 * Legacy firmware uploads: a fwup archive sent as multipart/form-data (`firmware` file, optional
 * `ttl`) to `POST /orgs/{org_name}/products/{product_name}/firmwares`, or to `POST /firmwares`
 * with `product_prn`. The file is read as a file-backed Blob (fs.openAsBlob), so fetch streams it
 * from disk and a 1 GiB archive never sits in memory.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CanopyClient } from './client';

export interface FirmwareUploadTarget {
  /** The organization-scoped path: both names. */
  orgName?: string;
  productName?: string;
  /** Or the flat path: the product's prn. */
  productPrn?: string;
}

export interface LegacyFirmware {
  prn: string;
  uuid: string;
  version: string;
  product: string;
  [field: string]: unknown;
}

export async function uploadFirmware(client: CanopyClient, file: string, target: FirmwareUploadTarget, ttl?: number): Promise<LegacyFirmware> {
  const form = new FormData();
  if (ttl !== undefined) form.append('ttl', String(ttl));
  if (target.productPrn && !target.orgName) form.append('product_prn', target.productPrn);
  form.append('firmware', await fs.openAsBlob(file), path.basename(file));
  if (target.orgName && target.productName) {
    const answer = await client.requestForm<{ data: LegacyFirmware }>('POST', `/orgs/${encodeURIComponent(target.orgName)}/products/${encodeURIComponent(target.productName)}/firmwares`, form);
    return answer.data;
  }
  if (!target.productPrn) throw new Error('uploadFirmware: give orgName and productName, or productPrn');
  const answer = await client.requestForm<{ firmware: LegacyFirmware }>('POST', '/firmwares', form);
  return answer.firmware;
}
