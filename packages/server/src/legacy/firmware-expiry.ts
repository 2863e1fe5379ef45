/**
 * The job that deletes a firmware `ttl` seconds after its upload unless a deployment uses it by
 * then (the upload's `ttl`, docs: canopy-core/reference/legacy-api/firmware). A firmware a
 * deployment uses is kept, and stays kept after that deployment is deleted: the ttl is for
 * archives that were uploaded and never deployed.
 */
import type { JobHandler } from '../workers/runner';
import { expireFirmware, FIRMWARE_EXPIRY_JOB } from './firmware-service';

export const firmwareExpiryJob: JobHandler = {
  kind: FIRMWARE_EXPIRY_JOB,
  async run({ platform, job }) {
    const { firmware_id: firmwareId } = job.payload as { firmware_id: string };
    await expireFirmware(platform, firmwareId);
  },
  retryDelay: (attempt) => Math.min(300, 2 ** attempt),
};
