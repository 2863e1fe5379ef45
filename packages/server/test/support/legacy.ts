/** Helpers for the legacy API's tests: multipart uploads and what an upload leaves on disk. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { firmwareKey, fwupArchive, type ArchiveOptions, type FirmwareKey } from './fwup';
import type { Api, TestServer } from './server';

export interface Uploaded {
  status: number;
  body: any;
}

/** POSTs a multipart body (`firmware` file plus text fields) as a client of the public API would. */
export async function uploadMultipart(baseUrl: string, urlPath: string, key: string, archive: Buffer | null, fields: Record<string, string> = {}): Promise<Uploaded> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (archive) form.append('firmware', new Blob([new Uint8Array(archive)]), 'firmware.fw');
  const response = await fetch(`${baseUrl}${urlPath}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Files under a directory, recursively (empty when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? (e as any).path, e.name));
}

/** The stored firmware archives and the upload temp files of the test server. */
export function leftovers(t: TestServer) {
  return { blobs: filesUnder(path.join(t.config.dataDir, 'blobs', 'legacy-firmware')), temp: filesUnder(path.join(t.config.dataDir, 'tmp')) };
}

export interface LegacyOrg {
  name: string;
  key: string;
  api: Api;
  organizationId: string;
  signingKey: FirmwareKey;
}

/** An organization with a signing key and a product, ready for uploads. */
export async function legacyOrg(t: TestServer, productName: string): Promise<LegacyOrg & { productPrn: string }> {
  const name = `legacy-${randomUUID().slice(0, 8)}`;
  const org = await t.createOrganization(name);
  const signingKey = firmwareKey();
  const key = await org.api('POST', '/signing_keys', { name: 'fwup', value: signingKey.value });
  if (key.status !== 201) throw new Error(`signing key: ${JSON.stringify(key.body)}`);
  const product = await org.api('POST', '/products', { name: productName });
  if (product.status !== 201) throw new Error(`product: ${JSON.stringify(product.body)}`);
  return { name, key: org.apiKey, api: org.api, organizationId: org.organizationId, signingKey, productPrn: product.body.product.prn };
}

export function archiveFor(org: { signingKey: FirmwareKey }, product: string, version = '1.0.0', extra: Partial<ArchiveOptions> = {}) {
  const uuid = randomUUID();
  return {
    uuid,
    bytes: fwupArchive({
      key: org.signingKey,
      meta: { 'meta-product': product, 'meta-version': version, 'meta-uuid': uuid, 'meta-platform': 'rpi4', 'meta-architecture': 'arm', 'meta-author': 'ops', 'meta-vcs-identifier': 'abc123', 'meta-fwup-version': '1.10.1' },
      ...extra,
    }),
  };
}
