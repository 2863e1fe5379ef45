/**
 * What an admin write's audit event says, as a pure function of the route, the request and the
 * answer: the subtype (created, updated, deleted, or the action's name), the resource (the first
 * prn in the path, else the one the answer carries), and what changed: the body's fields and
 * values with every secret redacted. The event itself is written by audit-trail.ts, in the
 * request's transaction.
 */
import { subtypesOf } from '@canopy/sdk/event-catalogue';

/** Fields whose values are never recorded: passwords, secrets, tokens, private keys, API keys. */
const SECRET_NAME = /password|secret|token|private|credential/i;
const KEY_NAME = /(^|_)key$/i;
const PUBLIC_KEY_NAME = /public_key$/i;
export const REDACTED = '[redacted]';
/** Longer strings are cut here (a certificate fits; a pasted file does not need to). */
export const MAX_RECORDED_STRING = 4096;

export function isSecretField(name: string): boolean {
  return SECRET_NAME.test(name) || (KEY_NAME.test(name) && !PUBLIC_KEY_NAME.test(name));
}

/** A URL's user-info (`https://user:pass@host`) is a credential: `https://[redacted]@host`. */
function withoutUserInfo(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i, `$1${REDACTED}@`);
}

/** Deeper values are not recorded: the body schemas nest far less. */
const MAX_RECORDED_DEPTH = 16;

/**
 * Text PostgreSQL's jsonb takes: a NUL or a lone surrogate (both pass JSON.parse; jsonb refuses
 * them) becomes U+FFFD.
 */
function storable(text: string): string {
  return text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** `value` with every secret field redacted, credentials taken out of URLs, long strings cut, and text jsonb can store. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    const clean = storable(withoutUserInfo(value));
    return clean.length > MAX_RECORDED_STRING ? `${clean.slice(0, MAX_RECORDED_STRING)}…` : clean;
  }
  if (depth >= MAX_RECORDED_DEPTH && value && typeof value === 'object') return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) out[storable(name)] = isSecretField(name) ? REDACTED : redact(field, depth + 1);
    return out;
  }
  return value;
}

/** Every subtype an audit event can have: the event catalogue's (a new action is added there, and the audit test says so). */
export const AUDIT_SUBTYPES: readonly string[] = subtypesOf('audit');

export interface AuditedRoute {
  method: string;
  /** The path as the OpenAPI document writes it: `/webhooks/{prn}/roll_secret`. */
  path: string;
}

export interface AuditInput {
  route: AuditedRoute;
  params: Record<string, unknown>;
  body: unknown;
  /** What the handler answered (a JSON object, or nothing). */
  answer: unknown;
  /** First path segments of every admin route (`devices`, `webhooks`...): the API's collections. */
  collections: ReadonlySet<string>;
}

export interface AuditEntry {
  subtype: string;
  resourcePrn: string | null;
  data: {
    operation: string;
    resource_type: string | null;
    path: Record<string, unknown>;
    changes: unknown;
  };
}

const isParameter = (segment: string) => segment.startsWith('{');

/**
 * created (POST to a collection), updated (PUT, PATCH), deleted (DELETE), or an action's name: a
 * POST whose last segment follows a path parameter and is not a collection (`roll_secret`,
 * `test_fire`, `revert`...).
 */
export function auditSubtype(route: AuditedRoute, collections: ReadonlySet<string>): string {
  if (route.method === 'PUT' || route.method === 'PATCH') return 'updated';
  if (route.method === 'DELETE') return 'deleted';
  const segments = route.path.split('/').filter(Boolean);
  const last = segments[segments.length - 1];
  const afterParameter = segments.length >= 2 && isParameter(segments[segments.length - 2]);
  if (afterParameter && !isParameter(last) && !collections.has(last)) return last;
  return 'created';
}

/** The resource object of an answer: the one wrapped value carrying a prn (`{"product": {...}}`, `{"data": {...}}`). */
function answeredResource(answer: unknown): Record<string, unknown> | null {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return null;
  for (const value of Object.values(answer)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { prn?: unknown }).prn === 'string') return value as Record<string, unknown>;
  }
  return null;
}

/** `prn:1:<org>:device:<id>` -> device; `prn:1:user:<id>` -> user. */
function prnType(prn: string): string | null {
  const parts = prn.split(':');
  if (parts.length === 4 && parts[2] === 'user') return 'user';
  return parts.length === 5 ? parts[3] : null;
}

function singular(collection: string): string {
  if (collection.endsWith('ies')) return `${collection.slice(0, -3)}y`;
  return collection.endsWith('s') ? collection.slice(0, -1) : collection;
}

export function auditEntry(input: AuditInput): AuditEntry {
  const { route, params, body, answer, collections } = input;
  const subtype = auditSubtype(route, collections);
  const pathPrn = Object.values(params).find((value): value is string => typeof value === 'string' && value.startsWith('prn:1:'));
  const resource = answeredResource(answer);
  const resourcePrn = pathPrn ?? (resource?.prn as string | undefined) ?? null;
  // The named collection nearest the end of the path: /orgs/{org}/products/{product}/devices/{id} -> device.
  const literal = route.path
    .split('/')
    .filter((segment) => segment && !isParameter(segment) && collections.has(segment))
    .pop();
  const resourceType = (resourcePrn && prnType(resourcePrn)) ?? (literal ? singular(literal) : null);
  // A multipart upload has no JSON body: what it made is the answer's resource.
  const changes = body && typeof body === 'object' && !Array.isArray(body) ? body : (resource ?? {});
  return {
    subtype,
    resourcePrn,
    data: {
      operation: `${route.method} ${route.path}`,
      resource_type: resourceType,
      path: redact(params) as Record<string, unknown>,
      changes: route.method === 'DELETE' && !(body && typeof body === 'object' && Object.keys(body).length > 0) ? null : redact(changes),
    },
  };
}
