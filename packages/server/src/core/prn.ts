/**
 * Resource names (site/docs/canopy-core/tools/admin-api.mdx, "Resource names"):
 *   resource      prn:1:<org uuid>:<type>:<uuid>
 *   organization  prn:1:<org uuid>
 *   user          prn:1:user:<uuid>
 * Parsing never throws: it answers null for anything that is not a well-formed prn, so callers
 * decide whether that is a 400, a 422 or a 404.
 */
export const PRN_TYPES = [
  'api_key',
  'artifact',
  'artifact_version',
  'binary',
  'binary_part',
  'binary_signature',
  'bundle',
  'bundle_override',
  'bundle_signature',
  'ca_certificate',
  'claim_token',
  'cohort',
  'deployment',
  'device',
  'device_certificate',
  'device_reclaim',
  'event',
  'firmware',
  'product',
  'release',
  'session',
  'signing_key',
  'tunnel',
  'user',
  'web_console_shell',
  'webhook',
] as const;

export type PrnType = (typeof PRN_TYPES)[number];

export type Prn =
  | { kind: 'resource'; organizationId: string; type: PrnType; id: string }
  | { kind: 'organization'; organizationId: string }
  | { kind: 'user'; id: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TYPES = new Set<string>(PRN_TYPES);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function parsePrn(value: unknown): Prn | null {
  if (typeof value !== 'string' || value.length > 200) return null;
  const parts = value.split(':');
  if (parts[0] !== 'prn' || parts[1] !== '1') return null;
  if (parts.length === 3 && isUuid(parts[2])) return { kind: 'organization', organizationId: parts[2] };
  if (parts.length === 4 && parts[2] === 'user' && isUuid(parts[3])) return { kind: 'user', id: parts[3] };
  if (parts.length === 5 && isUuid(parts[2]) && TYPES.has(parts[3]) && isUuid(parts[4])) {
    return { kind: 'resource', organizationId: parts[2], type: parts[3] as PrnType, id: parts[4] };
  }
  return null;
}

export function formatPrn(prn: Prn): string {
  switch (prn.kind) {
    case 'organization':
      return `prn:1:${prn.organizationId}`;
    case 'user':
      return `prn:1:user:${prn.id}`;
    case 'resource':
      return `prn:1:${prn.organizationId}:${prn.type}:${prn.id}`;
  }
}

export function resourcePrn(organizationId: string, type: PrnType, id: string): string {
  return `prn:1:${organizationId}:${type}:${id}`;
}

export function organizationPrn(organizationId: string): string {
  return `prn:1:${organizationId}`;
}

export function userPrn(id: string): string {
  return `prn:1:user:${id}`;
}

const UUID_LENGTH = 36;
const RESOURCE_PRN_HEAD = 'prn:1:';

/**
 * The id of a resource prn of the expected type that belongs to the caller's organization,
 * or null. A prn of another type or organization is indistinguishable from a missing one.
 *
 * The same answer as parsePrn's (prn.test.ts checks the two agree), without splitting the
 * string: every read by prn goes through here, and the organization and the type fix every
 * character before the id, so a few comparisons and one uuid check decide. Splitting made an
 * array and five strings and ran the uuid pattern twice, per request.
 */
export function resourceIdFromPrn(value: unknown, type: PrnType, organizationId: string): string | null {
  if (typeof value !== 'string') return null;
  // prn:1:<organization>:<type>:<id>
  const typeAt = RESOURCE_PRN_HEAD.length + organizationId.length + 1;
  const idAt = typeAt + type.length + 1;
  if (
    value.length !== idAt + UUID_LENGTH ||
    !value.startsWith(RESOURCE_PRN_HEAD) ||
    !value.startsWith(organizationId, RESOURCE_PRN_HEAD.length) ||
    value[typeAt - 1] !== ':' ||
    !value.startsWith(type, typeAt) ||
    value[idAt - 1] !== ':'
  ) {
    return null;
  }
  const id = value.slice(idAt);
  return isUuid(id) && isUuid(organizationId) ? id : null;
}
