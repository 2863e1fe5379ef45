/**
 * One browser upload of a binary, as the SDK runs it (planBlob, then uploadPlannedBinary: create
 * or reuse the binary, send the parts the server lacks, hashable -> hashing -> signable), with its
 * progress as React state and a resume record kept until the server has verified the bytes.
 */
import { MIN_PART_SIZE, planBlob, readBlobPart, uploadPlannedBinary, type Binary, type PartPlan } from '@canopy/sdk/browser';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { useSession } from '../../api/session-context';
import { artifactKeys } from '../artifacts/queries';
import { forgetUpload, planFor, rememberUpload, type UnfinishedUpload } from './upload-resume';

export type UploadPhase = 'idle' | 'hashing' | 'uploading' | 'verifying' | 'done' | 'failed';

export interface UploadProgress {
  phase: UploadPhase;
  /** Bytes hashed (hashing) or held by the server (uploading). */
  bytes: number;
  totalBytes: number;
  partsHeld: number;
  partsTotal: number;
  partsSkipped: number;
  state: string | null;
  binary: Binary | null;
  error: unknown;
}

const IDLE: UploadProgress = { phase: 'idle', bytes: 0, totalBytes: 0, partsHeld: 0, partsTotal: 0, partsSkipped: 0, state: null, binary: null, error: null };

export function useBinaryUpload(artifactVersionPrn: string) {
  const { client } = useSession();
  const queries = useQueryClient();
  const [progress, setProgress] = useState<UploadProgress>(IDLE);
  const abort = useRef<AbortController | null>(null);
  const update = (change: Partial<UploadProgress>) => setProgress((now) => ({ ...now, ...change }));

  const start = useCallback(
    async (file: File, target: string, resumeFrom?: UnfinishedUpload) => {
      const controller = new AbortController();
      abort.current = controller;
      setProgress({ ...IDLE, phase: 'hashing', totalBytes: file.size });
      let plan: PartPlan | undefined = planFor(resumeFrom, file);
      try {
        // The smallest parts the API takes: a finer progress bar, and less to send again after a cut.
        plan ??= await planBlob(file, { partSize: MIN_PART_SIZE, signal: controller.signal, onProgress: (bytes) => update({ bytes }) });
        const known = plan;
        update({ phase: 'uploading', bytes: 0, partsTotal: known.parts.length });
        const binary = await uploadPlannedBinary(client, {
          plan: known,
          readPart: (part) => readBlobPart(file, part),
          artifactVersionPrn,
          target,
          concurrency: 3,
          signal: controller.signal,
          pollIntervalMs: 500,
          onEvent: (event) => {
            if (event.type === 'binary') {
              rememberUpload({ artifactVersionPrn, target, binaryPrn: event.binary.prn, fileName: file.name, fileSize: file.size, lastModified: file.lastModified, plan: known });
              update({ binary: event.binary, state: event.binary.state });
              void queries.invalidateQueries({ queryKey: artifactKeys.binariesOf(artifactVersionPrn) });
            } else if (event.type === 'part-skipped' || event.type === 'part-uploaded') {
              const skipped = event.type === 'part-skipped' ? 1 : 0;
              setProgress((now) => ({ ...now, bytes: now.bytes + event.part.size, partsHeld: now.partsHeld + 1, partsSkipped: now.partsSkipped + skipped }));
            } else if (event.type === 'state') {
              update({ state: event.state, phase: event.state === 'signable' || event.state === 'signed' ? 'done' : 'verifying' });
            }
          },
        });
        forgetUpload(artifactVersionPrn, target);
        update({ phase: 'done', binary, state: binary.state });
      } catch (error) {
        update({ phase: 'failed', error });
      } finally {
        abort.current = null;
        void queries.invalidateQueries({ queryKey: artifactKeys.binariesOf(artifactVersionPrn) });
      }
    },
    [client, queries, artifactVersionPrn],
  );

  const cancel = useCallback(() => abort.current?.abort(), []);
  return { progress, start, cancel };
}
