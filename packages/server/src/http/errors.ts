/**
 * The one error shape of the admin and device APIs (site/docs/canopy-core/tools/admin-api.mdx,
 * "Errors"): a non-2xx status with `{"errors": [{"code": "<snake_case>", "context": {...}}]}`.
 *
 * Services throw ApiError; the HTTP layer turns it (and Fastify's own errors) into that body.
 * Anything else is a bug and answers a bare 500 with no stack trace.
 */
export type ErrorContext = Record<string, unknown>;

export interface ErrorEntry {
  code: string;
  context: ErrorContext;
}

export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorEntry[];

  constructor(status: number, errors: ErrorEntry[]) {
    super(errors.map((e) => e.code).join(', '));
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
  }

  toBody(): { errors: ErrorEntry[] } {
    return { errors: this.errors };
  }
}

/** One failing field of a request body: 422 `validation`. */
export interface FieldProblem {
  field: string;
  reason: string;
  [detail: string]: unknown;
}

/** 400: a malformed query/path parameter or header, e.g. `limit` out of range. */
export function parameterError(parameter: string, reason: string, detail: ErrorContext = {}): ApiError {
  return new ApiError(400, [{ code: 'parameter', context: { parameter, reason, ...detail } }]);
}

/** 400: the request as a whole cannot be read (malformed JSON, missing body). */
export function badRequest(code: string, context: ErrorContext = {}): ApiError {
  return new ApiError(400, [{ code, context }]);
}

export function unauthenticated(reason: string): ApiError {
  return new ApiError(401, [{ code: 'unauthenticated', context: { reason } }]);
}

export function unauthorized(requiredRole: string): ApiError {
  return new ApiError(403, [{ code: 'unauthorized', context: { required_role: requiredRole } }]);
}

/** 404: also the answer for a prn of the wrong type or of another organization, so nothing leaks. */
export function notFound(resource: string, prn?: string): ApiError {
  return new ApiError(404, [{ code: 'not_found', context: prn ? { resource, prn } : { resource } }]);
}

/** 409: the request conflicts with the current state (`invalid_state_transition`, `release_chain_invalid`...). */
export function conflict(code: string, context: ErrorContext = {}): ApiError {
  return new ApiError(409, [{ code, context }]);
}

/** 422 with one entry per failing field. */
export function validationError(problems: FieldProblem[]): ApiError {
  return new ApiError(
    422,
    problems.map(({ field, reason, ...detail }) => ({ code: 'validation', context: { field, reason, ...detail } })),
  );
}

/** 422 for a single field, the common case in services. */
export function invalidField(field: string, reason: string, detail: ErrorContext = {}): ApiError {
  return validationError([{ field, reason, ...detail }]);
}
