/**
 * The upload of a binary from a file on disk (Node): plans the file (part-plan.ts), then runs the
 * upload of binary-upload-core.ts, which browsers run over a File instead.
 */
import type { CanopyClient } from './client-core';
import { uploadPlannedBinary, type Binary, type PlannedUploadOptions, type UploadEvent as PlanUploadEvent } from './binary-upload-core';
import { planFile, readPart, type FilePlan } from './part-plan';

export { findBinary, uploadPart, waitForSignable, uploadPlannedBinary, type Binary, type BinaryPart, type PartReader, type PlannedUploadOptions } from './binary-upload-core';

/** The events of an upload from a file: the hashed plan names the file's path. */
export type UploadEvent = PlanUploadEvent<FilePlan>;

export interface UploadBinaryOptions extends Omit<PlannedUploadOptions<FilePlan>, 'plan' | 'readPart'> {
  filePath: string;
  partSize?: number;
  /** A plan computed earlier for the same file, to skip hashing it again. */
  plan?: FilePlan;
}

export async function uploadBinary(client: CanopyClient, options: UploadBinaryOptions): Promise<Binary> {
  const plan = options.plan ?? (await planFile(options.filePath, options.partSize));
  return uploadPlannedBinary<FilePlan>(client, { ...options, plan, readPart: (part) => readPart(plan.path, part) });
}
