/**
 * What runs in the background of every server process. A context adds its durable job handler
 * to JOB_HANDLERS, or a long-running loop of its own (webhook delivery) to BACKGROUND_SERVICES.
 */
import { hashBinaryJob } from '../binaries/hashing-job';
import { binaryDeltaJob } from '../deltas/delta-job';
import { purgeBlobsJob } from '../binaries/purge-job';
import type { Platform } from '../platform';
import { createDeliveryService } from '../webhooks/delivery-worker';
import { createTunnelDataPlane } from '../tunnels/data-plane/service';
import { tunnelExpiryJob } from '../tunnels/expiry';
import { createTufRefresher } from '../tuf/refresher';
import { firmwareExpiryJob } from '../legacy/firmware-expiry';
import { firmwareUploadSweepJob } from '../legacy/firmware-upload-sweep';
import type { BackgroundService } from './background-service';
import type { JobHandler } from './runner';

export const JOB_HANDLERS: JobHandler[] = [hashBinaryJob, binaryDeltaJob, purgeBlobsJob, tunnelExpiryJob, firmwareExpiryJob, firmwareUploadSweepJob];

export const BACKGROUND_SERVICES: ((platform: Platform) => BackgroundService)[] = [createDeliveryService, createTunnelDataPlane, createTufRefresher];
