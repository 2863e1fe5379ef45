/**
 * What every fuzzed answer must be: never a 5xx, and every 4xx the contract's error shape
 * `{"errors":[{"code","context"}]}` naming what was wrong (`field` for a 422 `validation`,
 * `parameter` for a 400 `parameter`).
 */
import type { FuzzRequest, FuzzResponse } from './requests';

/**
 * The one 5xx the contract has: the legacy firmware upload answers a bad archive signature with
 * `500 {"errors": {"detail": "invalid_signature"}}`, as the public API does. Allowed only where the
 * operation documents that status, and only with exactly that body.
 */
function documentedServerError(response: FuzzResponse, documented5xx: number[]): boolean {
  if (!documented5xx.includes(response.status) || !response.contentType.startsWith('application/json')) return false;
  try {
    return JSON.stringify(JSON.parse(response.text)) === JSON.stringify({ errors: { detail: 'invalid_signature' } });
  } catch {
    return false;
  }
}

/** Why an answer breaks the contract, or null when it keeps it. `documented5xx`: the operation's documented 5xx statuses. */
export function contractBreach(response: FuzzResponse, documented5xx: number[] = []): string | null {
  if (response.status >= 500) return documentedServerError(response, documented5xx) ? null : `status ${response.status}`;
  if (response.status < 400) return null;
  let body: any;
  try {
    body = JSON.parse(response.text);
  } catch {
    return `${response.status} body is not JSON`;
  }
  if (!response.contentType.startsWith('application/json')) return `${response.status} content-type ${response.contentType}`;
  const errors = body?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return `${response.status} without an errors array`;
  for (const entry of errors) {
    if (typeof entry?.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(entry.code)) return `${response.status} error code ${JSON.stringify(entry?.code)}`;
    if (!entry.context || typeof entry.context !== 'object' || Array.isArray(entry.context)) return `${response.status} ${entry.code} without a context object`;
    if (entry.code === 'validation' && (typeof entry.context.field !== 'string' || typeof entry.context.reason !== 'string')) return `422 validation without field and reason`;
    if (entry.code === 'parameter' && (typeof entry.context.parameter !== 'string' || !entry.context.parameter)) return `400 parameter without its name`;
  }
  return null;
}

/** A failure line short enough to read, long enough to replay. */
export function describe(request: FuzzRequest, response: FuzzResponse, breach: string): string {
  const body = request.body ? request.body.subarray(0, 300).toString('latin1') : '';
  return `${breach}: ${request.method} ${request.path.slice(0, 300)} headers=${JSON.stringify(request.headers).slice(0, 300)} body=${JSON.stringify(body)} -> ${response.text.slice(0, 300)}`;
}
