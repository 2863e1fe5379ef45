/**
 * The `canopy` object of a binary's custom metadata, validated against the documented schema
 * (site/docs/canopy-core/tools/canopy-daemon/custom-metadata/schema.md) before any install.
 * Pure: an invalid object yields a reason naming the key, which the loop reports as `failed`.
 */
export const INSTALLER_NAMES = ['avocado-ab', 'deb', 'file', 'rauc', 'rpm', 'script', 'swupdate', 'tar'] as const;
export type InstallerName = (typeof INSTALLER_NAMES)[number];

export interface CanopyMetadata {
  installer: InstallerName;
  reboot_required: boolean;
  file?: { path: string; mode: number };
  script?: { path: string; timeout_seconds: number };
  /** Ownership: numeric ids applied to every entry; absent: the daemon's own (root). */
  tar?: { path: string; uid?: number; gid?: number; umask: number };
  deb?: { allow_downgrade: boolean };
  rpm?: { allow_downgrade: boolean };
  min_free_bytes?: number;
}

export type MetadataResult = { ok: true; metadata: CanopyMetadata } | { ok: false; reason: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKey(object: Record<string, unknown>, allowed: string[], at: string): string | null {
  const extra = Object.keys(object).find((key) => !allowed.includes(key));
  return extra === undefined ? null : `custom_metadata.${at}${extra}: unknown key`;
}

const absolute = (value: unknown) => typeof value === 'string' && value.startsWith('/') && !value.includes('\0');
const MAX_ID = 4294967294;
/** An absolute directory other than /, with no `.` or `..` segment (schema.md's pattern). */
const TAR_PATH = /^(\/(?!\.\.?(\/|$))[^/\u0000]+)+\/?$/;
const isId = (value: unknown) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_ID;

function parseTar(raw: unknown): CanopyMetadata['tar'] | string {
  if (!isObject(raw)) return 'custom_metadata.canopy.tar: must be an object';
  const bad = unknownKey(raw, ['path', 'uid', 'gid', 'umask'], 'canopy.tar.');
  if (bad) return bad;
  if (typeof raw.path !== 'string' || !TAR_PATH.test(raw.path)) return `custom_metadata.canopy.tar.path: must match ${TAR_PATH.source}`;
  for (const key of ['uid', 'gid'] as const) {
    if (raw[key] !== undefined && !isId(raw[key])) return `custom_metadata.canopy.tar.${key}: must be an integer from 0 to ${MAX_ID}`;
  }
  const umask = raw.umask ?? '0022';
  if (typeof umask !== 'string' || !/^0[0-7]{3}$/.test(umask)) return 'custom_metadata.canopy.tar.umask: must match ^0[0-7]{3}$';
  const tar: NonNullable<CanopyMetadata['tar']> = { path: (raw.path as string).replace(/\/+$/, ''), umask: Number.parseInt(umask, 8) };
  if (raw.uid !== undefined) tar.uid = raw.uid as number;
  if (raw.gid !== undefined) tar.gid = raw.gid as number;
  return tar;
}

/** The `deb` or `rpm` object: a package manager's settings. */
function parsePackage(raw: unknown, key: 'deb' | 'rpm'): { allow_downgrade: boolean } | string {
  if (!isObject(raw)) return `custom_metadata.canopy.${key}: must be an object`;
  const bad = unknownKey(raw, ['allow_downgrade'], `canopy.${key}.`);
  if (bad) return bad;
  const allow = raw.allow_downgrade ?? false;
  if (typeof allow !== 'boolean') return `custom_metadata.canopy.${key}.allow_downgrade: must be a boolean`;
  return { allow_downgrade: allow };
}

export function parseCanopyMetadata(customMetadata: unknown): MetadataResult {
  const fail = (reason: string): MetadataResult => ({ ok: false, reason });
  const raw = isObject(customMetadata) ? customMetadata.canopy : undefined;
  // No canopy object: the defaults (avocado-ab, reboot) as the schema gives them.
  if (raw === undefined) return { ok: true, metadata: { installer: 'avocado-ab', reboot_required: true } };
  if (!isObject(raw)) return fail('custom_metadata.canopy: must be an object');
  const extra = unknownKey(raw, ['installer', 'reboot_required', 'file', 'script', 'tar', 'deb', 'rpm', 'min_free_bytes'], 'canopy.');
  if (extra) return fail(extra);

  const installer = raw.installer ?? 'avocado-ab';
  if (!INSTALLER_NAMES.includes(installer as InstallerName)) {
    return fail(`custom_metadata.canopy.installer: must be one of ${INSTALLER_NAMES.join(', ')}`);
  }
  const reboot = raw.reboot_required ?? true;
  if (typeof reboot !== 'boolean') return fail('custom_metadata.canopy.reboot_required: must be a boolean');
  const metadata: CanopyMetadata = { installer: installer as InstallerName, reboot_required: reboot };

  if (raw.file !== undefined) {
    if (!isObject(raw.file)) return fail('custom_metadata.canopy.file: must be an object');
    const bad = unknownKey(raw.file, ['path', 'mode'], 'canopy.file.');
    if (bad) return fail(bad);
    if (!absolute(raw.file.path)) return fail('custom_metadata.canopy.file.path: must be an absolute path');
    const mode = raw.file.mode ?? '0644';
    if (typeof mode !== 'string' || !/^0[0-7]{3}$/.test(mode)) return fail('custom_metadata.canopy.file.mode: must match ^0[0-7]{3}$');
    metadata.file = { path: raw.file.path as string, mode: Number.parseInt(mode, 8) };
  }
  if (raw.script !== undefined) {
    if (!isObject(raw.script)) return fail('custom_metadata.canopy.script: must be an object');
    const bad = unknownKey(raw.script, ['path', 'timeout_seconds'], 'canopy.script.');
    if (bad) return fail(bad);
    if (!absolute(raw.script.path)) return fail('custom_metadata.canopy.script.path: must be an absolute path');
    const timeout = raw.script.timeout_seconds ?? 600;
    if (!Number.isInteger(timeout) || (timeout as number) < 1 || (timeout as number) > 3600) {
      return fail('custom_metadata.canopy.script.timeout_seconds: must be an integer from 1 to 3600');
    }
    metadata.script = { path: raw.script.path as string, timeout_seconds: timeout as number };
  }
  if (raw.tar !== undefined) {
    const tar = parseTar(raw.tar);
    if (typeof tar === 'string') return fail(tar);
    metadata.tar = tar;
  }
  for (const key of ['deb', 'rpm'] as const) {
    if (raw[key] === undefined) continue;
    const settings = parsePackage(raw[key], key);
    if (typeof settings === 'string') return fail(settings);
    metadata[key] = settings;
  }
  if (raw.min_free_bytes !== undefined) {
    if (!Number.isInteger(raw.min_free_bytes) || (raw.min_free_bytes as number) < 0) {
      return fail('custom_metadata.canopy.min_free_bytes: must be a non-negative integer');
    }
    metadata.min_free_bytes = raw.min_free_bytes as number;
  }
  if (metadata.installer === 'file' && !metadata.file) return fail('custom_metadata.canopy.file: required by the file installer');
  if (metadata.installer === 'script' && !metadata.script) return fail('custom_metadata.canopy.script: required by the script installer');
  if (metadata.installer === 'tar' && !metadata.tar) return fail('custom_metadata.canopy.tar: required by the tar installer');
  if (metadata.installer === 'deb' && !metadata.deb) metadata.deb = { allow_downgrade: false };
  if (metadata.installer === 'rpm' && !metadata.rpm) metadata.rpm = { allow_downgrade: false };
  return { ok: true, metadata };
}
