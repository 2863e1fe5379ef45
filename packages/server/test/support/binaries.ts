/**
 * Helpers for binary tests: an artifact version to hang binaries on, deterministic bytes, part
 * uploads through the handed-out URL, and an Ed25519 signing key.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { Api } from './server';

export const MiB = 1024 * 1024;

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Random bytes of the given size (tests keep the buffer to compare downloads with). */
export const bytesOf = (size: number) => randomBytes(size);

/** A new artifact and one version of it, through the API of the client given. */
export async function createArtifactVersion(api: Api, version = '1.0.0') {
  const artifact = await api('POST', '/artifacts', { name: `artifact-${randomUUID().slice(0, 8)}` });
  if (artifact.status !== 201) throw new Error(JSON.stringify(artifact.body));
  const created = await api('POST', '/artifact_versions', { artifact_prn: artifact.body.artifact.prn, version });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return { prn: created.body.artifact_version.prn as string, artifactPrn: artifact.body.artifact.prn as string };
}

/** PUTs raw bytes to a presigned upload URL (either store). */
export async function putBytes(url: string, body: Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'PUT', body, headers: { 'content-length': String(body.length), ...headers } });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // S3 answers empty or XML
  }
  return { status: response.status, body: parsed };
}

export interface Keypair {
  publicKey: KeyObject;
  privateKey: KeyObject;
  /** base64 of the raw 32-byte public key, what signing keys store. */
  value: string;
}

export function ed25519Keypair(): Keypair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return { publicKey, privateKey, value: raw.toString('base64') };
}

/** The signature the API expects: Ed25519 over the ASCII lowercase hex hash, as hex. */
export function signHash(privateKey: KeyObject, hashHex: string): string {
  return sign(null, Buffer.from(hashHex, 'ascii'), privateKey).toString('hex');
}

/** Polls until `check` answers true (the hashing job runs in the background). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition never became true');
}

/**
 * A binary of `bytes` uploaded in parts of `partSize` and moved to `until` ('uploadable' leaves
 * the parts uploaded but the upload unfinished; 'signable' waits for the hashing job). `partUrls`
 * are the parts' upload URLs, in index order.
 */
export async function uploadedBinary(
  api: Api,
  bytes: Buffer,
  options: { partSize?: number; until?: 'uploadable' | 'hashable' | 'hashing' | 'signable'; target?: string; hash?: string; versionPrn?: string } = {},
) {
  const versionPrn = options.versionPrn ?? (await createArtifactVersion(api)).prn;
  const created = await api('POST', '/binaries', { artifact_version_prn: versionPrn, hash: options.hash ?? sha256(bytes), size: bytes.length, target: options.target ?? 'x86_64-linux' });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const prn: string = created.body.binary.prn;
  const partSize = options.partSize ?? 5 * MiB;
  const partUrls: string[] = [];
  for (let offset = 0, index = 1; offset < bytes.length; offset += partSize, index++) {
    const part = bytes.subarray(offset, offset + partSize);
    const put = await api('PUT', `/binaries/${prn}/parts/${index}`, { expected_binary_size: bytes.length, hash: sha256(part), size: part.length });
    if (put.status !== 201) throw new Error(JSON.stringify(put.body));
    partUrls.push(put.body.binary_part.presigned_upload_url);
    const uploaded = await putBytes(put.body.binary_part.presigned_upload_url, part);
    if (uploaded.status !== 200) throw new Error(`upload answered ${uploaded.status}: ${JSON.stringify(uploaded.body)}`);
  }
  const until = options.until ?? 'uploadable';
  const order = ['hashable', 'hashing'] as const;
  for (const state of order) {
    if (until === 'uploadable') break;
    const moved = await api('PATCH', `/binaries/${prn}`, { state });
    if (moved.status !== 200) throw new Error(JSON.stringify(moved.body));
    if (state === until) break;
  }
  if (until === 'signable') {
    await eventually(async () => (await api('GET', `/binaries/${prn}`)).body.binary.state !== 'hashing');
  }
  return { prn, versionPrn, partUrls, binary: (await api('GET', `/binaries/${prn}`)).body.binary };
}
