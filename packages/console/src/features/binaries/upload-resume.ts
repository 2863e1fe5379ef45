/**
 * What the browser remembers of an unfinished upload, so that after a reload the version's page
 * says which file to pick again. Kept in localStorage (it outlives the tab, unlike the session),
 * per artifact version and target. The plan (hashes of every part) is kept when small, so picking
 * the same file again (same name, size and modification time) skips hashing it; the server says
 * which parts it already holds, and only the others are sent.
 */
import type { PartPlan } from '@canopy/sdk/browser';

export interface UnfinishedUpload {
  artifactVersionPrn: string;
  target: string;
  binaryPrn: string;
  fileName: string;
  fileSize: number;
  lastModified: number;
  plan?: PartPlan;
}

const PREFIX = 'canopy.upload:';
const PLAN_LIMIT = 512 * 1024;
const keyOf = (artifactVersionPrn: string, target: string) => `${PREFIX}${artifactVersionPrn}:${target}`;

export function rememberUpload(upload: UnfinishedUpload): void {
  const withPlan = JSON.stringify(upload);
  try {
    localStorage.setItem(keyOf(upload.artifactVersionPrn, upload.target), withPlan.length <= PLAN_LIMIT ? withPlan : JSON.stringify({ ...upload, plan: undefined }));
  } catch {
    // Storage full or refused: the upload goes on, it just cannot be resumed without rehashing.
  }
}

export function forgetUpload(artifactVersionPrn: string, target: string): void {
  localStorage.removeItem(keyOf(artifactVersionPrn, target));
}

export function unfinishedUploads(artifactVersionPrn: string): UnfinishedUpload[] {
  const found: UnfinishedUpload[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith(`${PREFIX}${artifactVersionPrn}:`)) continue;
    try {
      found.push(JSON.parse(localStorage.getItem(key) ?? '') as UnfinishedUpload);
    } catch {
      localStorage.removeItem(key);
    }
  }
  return found;
}

/** The remembered plan, if the picked file is the one that was being sent. */
export function planFor(upload: UnfinishedUpload | undefined, file: File): PartPlan | undefined {
  if (!upload?.plan) return undefined;
  return upload.fileName === file.name && upload.fileSize === file.size && upload.lastModified === file.lastModified ? upload.plan : undefined;
}
