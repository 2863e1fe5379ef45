/**
 * The whole multipart upload of one binary (site/docs/canopy-core/guides/binary-management.md),
 * wherever its bytes are: the caller hands the part plan and a way to read one part (Node:
 * binary-upload.ts over a path; browsers: blob-plan.ts over a File). No Node modules here.
 *   hash the file -> create the binary, or reuse the one non-destroyed binary of this
 *   artifact_version + target -> PUT each missing part's declaration, then its bytes to the
 *   presigned URL (several at once) -> PATCH hashable -> PATCH hashing -> wait for signable.
 * Re-running after an interruption skips parts the server already holds as `valid`.
 */
import type { CanopyClient } from './client-core';
import { fillPath } from './client-core';
import { CanopyApiError } from './errors';
import { listAll } from './paginate';
import type { PartPlan, PlannedPart } from './part-sizes';

export interface Binary {
  prn: string;
  artifact_version_prn: string;
  target: string;
  hash: string;
  size: number;
  state: string;
  signatures?: { signature: string; signing_key_prn: string }[];
  [field: string]: unknown;
}

export interface BinaryPart {
  index: number;
  size: number;
  hash: string;
  state: string;
  presigned_upload_url?: string;
  [field: string]: unknown;
}

/** What an upload reports as it goes; `P` is the plan's type (Node's FilePlan also names the path). */
export type UploadEvent<P extends PartPlan = PartPlan> =
  | { type: 'hashed'; plan: P }
  | { type: 'binary'; binary: Binary; reused: boolean }
  | { type: 'part-skipped'; part: PlannedPart }
  | { type: 'part-uploaded'; part: PlannedPart }
  | { type: 'state'; state: string };

/** Reads one planned part's bytes when it is about to be sent. */
export type PartReader = (part: PlannedPart) => Promise<Uint8Array>;

export interface PlannedUploadOptions<P extends PartPlan = PartPlan> {
  plan: P;
  readPart: PartReader;
  artifactVersionPrn: string;
  target: string;
  description?: string;
  customMetadata?: Record<string, unknown>;
  /** Caller-chosen UUID for a new binary. */
  id?: string;
  /** Parts in flight at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  onEvent?: (event: UploadEvent<P>) => void;
  pollIntervalMs?: number;
  /** How long to wait for the server to verify the hash (default 10 minutes). */
  verifyTimeoutMs?: number;
}

const DONE_STATES = new Set(['signable', 'signed']);

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The live (non-destroyed) binary of an artifact version and target, if any. */
export async function findBinary(client: CanopyClient, artifactVersionPrn: string, target: string): Promise<Binary | null> {
  const matches = (b: Binary) => b.artifact_version_prn === artifactVersionPrn && b.target === target && b.state !== 'destroyed';
  let candidates: Binary[];
  try {
    candidates = await listAll<Binary>(client, '/binaries', {
      itemsKey: 'binaries',
      query: { limit: 100, search: `artifact_version_prn:${quote(artifactVersionPrn)} and target:${quote(target)}` },
    });
  } catch (error) {
    // A server whose binary search does not know these fields: filter the whole list instead.
    if (!(error instanceof CanopyApiError) || error.status !== 400) throw error;
    candidates = await listAll<Binary>(client, '/binaries', { itemsKey: 'binaries', query: { limit: 100 } });
  }
  return candidates.find(matches) ?? null;
}

async function createOrReuse(client: CanopyClient, options: Pick<PlannedUploadOptions, 'artifactVersionPrn' | 'target' | 'description' | 'customMetadata' | 'id'>, plan: PartPlan): Promise<{ binary: Binary; reused: boolean }> {
  const existing = await findBinary(client, options.artifactVersionPrn, options.target);
  if (!existing) {
    const body = {
      artifact_version_prn: options.artifactVersionPrn,
      target: options.target,
      hash: plan.hash,
      size: plan.size,
      description: options.description,
      custom_metadata: options.customMetadata,
      id: options.id,
    };
    const created = await client.request<{ binary: Binary }>('POST', '/binaries', { body });
    return { binary: created.binary, reused: false };
  }
  const sameContent = existing.hash?.toLowerCase() === plan.hash && Number(existing.size) === plan.size;
  if (sameContent) return { binary: existing, reused: true };
  if (existing.state === 'signed') {
    throw new Error(`binary ${existing.prn} for ${options.target} is already signed with other content (hash ${existing.hash}); destroy it first`);
  }
  // Different content on an unsigned binary: reset it (parts dropped, revision + 1) and re-declare.
  const reset = await client.request<{ binary: Binary }>('PATCH', fillPath('/binaries/{prn}', { prn: existing.prn }), {
    body: { prn: existing.prn, state: 'uploadable', hash: plan.hash, size: plan.size },
  });
  return { binary: reset.binary, reused: true };
}

async function validParts(client: CanopyClient, binaryPrn: string): Promise<Map<number, BinaryPart>> {
  const parts = await listAll<BinaryPart>(client, fillPath('/binaries/{prn}/parts', { prn: binaryPrn }), { itemsKey: 'binary_parts', query: { limit: 100 } });
  return new Map(parts.filter((p) => p.state === 'valid').map((p) => [p.index, p]));
}

/** Declares one part, then PUTs its bytes to the presigned URL (without the API key). */
export async function uploadPart(client: CanopyClient, binaryPrn: string, plan: PartPlan, part: PlannedPart, readPart: PartReader, signal?: AbortSignal): Promise<void> {
  const path = fillPath('/binaries/{prn}/parts/{index}', { prn: binaryPrn, index: part.index });
  const declared = await client.request<{ binary_part: BinaryPart }>('PUT', path, {
    body: { expected_binary_size: plan.size, hash: part.hash, size: part.size },
    signal,
  });
  const url = declared.binary_part.presigned_upload_url;
  if (!url) throw new Error(`PUT ${path} answered no presigned_upload_url`);
  const bytes = await readPart(part);
  const response = await client.fetch(new URL(url, client.baseUrl).toString(), {
    method: 'PUT',
    body: bytes as unknown as BodyInit,
    headers: { 'content-type': 'application/octet-stream', 'x-amz-checksum-sha256': part.checksumBase64 },
    signal,
  });
  if (!response.ok) {
    throw await CanopyApiError.fromResponse(response, 'PUT', `presigned upload of part ${part.index}`);
  }
}

/** Runs `work` over `items` with at most `limit` in flight; the first failure stops new starts. */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failed = false;
  const runner = async () => {
    while (!failed && next < items.length) {
      signal?.throwIfAborted();
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, runner));
}

async function setState(client: CanopyClient, prn: string, state: string): Promise<Binary> {
  const answer = await client.request<{ binary: Binary }>('PATCH', fillPath('/binaries/{prn}', { prn }), { body: { prn, state } });
  return answer.binary;
}

/** Polls until the server has verified the bytes (signable) or a signature made it signed. */
export async function waitForSignable(client: CanopyClient, prn: string, options: { pollIntervalMs?: number; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Binary> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const { binary } = await client.request<{ binary: Binary }>('GET', fillPath('/binaries/{prn}', { prn }), { signal: options.signal });
    if (DONE_STATES.has(binary.state)) return binary;
    // Back in hashable (or uploadable) after hashing: the server's hash of the bytes did not match.
    if (binary.state !== 'hashing') throw new Error(`binary ${prn} failed verification: state ${binary.state} ${JSON.stringify(binary.error ?? binary.state_reason ?? '')}`);
    if (Date.now() > deadline) throw new Error(`binary ${prn} still hashing after ${options.timeoutMs ?? 600_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs ?? 500));
    options.signal?.throwIfAborted();
  }
}

export async function uploadPlannedBinary<P extends PartPlan>(client: CanopyClient, options: PlannedUploadOptions<P>): Promise<Binary> {
  const emit = options.onEvent ?? (() => {});
  const plan = options.plan;
  emit({ type: 'hashed', plan });

  const { binary, reused } = await createOrReuse(client, options, plan);
  emit({ type: 'binary', binary, reused });
  if (DONE_STATES.has(binary.state)) return binary;

  let state = binary.state;
  if (state === 'uploadable') {
    const valid = await validParts(client, binary.prn);
    const missing: PlannedPart[] = [];
    for (const part of plan.parts) {
      const held = valid.get(part.index);
      if (held && held.size === part.size && held.hash?.toLowerCase() === part.hash) emit({ type: 'part-skipped', part });
      else missing.push(part);
    }
    await inPool(
      missing,
      options.concurrency ?? 4,
      async (part) => {
        await uploadPart(client, binary.prn, plan, part, options.readPart, options.signal);
        emit({ type: 'part-uploaded', part });
      },
      options.signal,
    );
    options.signal?.throwIfAborted();
    state = (await setState(client, binary.prn, 'hashable')).state;
    emit({ type: 'state', state });
  }
  if (state === 'hashable') {
    state = (await setState(client, binary.prn, 'hashing')).state;
    emit({ type: 'state', state });
  }
  const done = await waitForSignable(client, binary.prn, { pollIntervalMs: options.pollIntervalMs, timeoutMs: options.verifyTimeoutMs, signal: options.signal });
  emit({ type: 'state', state: done.state });
  return done;
}
