/**
 * Request validation: two Ajv instances, because the rules differ by where a value comes from.
 * Query strings, path parameters and headers are text, coerced to the schema's types; JSON
 * bodies are typed already, so `"size": "12"` is a 422, not silently 12. Ajv's errors become the
 * contract's shape: 422 per failing body field, 400 for a malformed parameter.
 * For all text input, here so no route can forget it: a NUL (U+0000) anywhere (a value or an
 * object key) is refused, `reason: "contains_nul_character"` naming the field, since PostgreSQL
 * cannot store it in `text` or `jsonb` and no field has a use for it; JSON nested deeper than
 * MAX_JSON_DEPTH is refused (`reason: "too_deeply_nested"`) before anything recurses into it.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError, parameterError, validationError, type FieldProblem } from './errors';

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, removeAdditional: false, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const parameterAjv = makeAjv('array');

/** Objects and arrays nested deeper than this are refused (PostgreSQL's jsonb parser recurses too). */
export const MAX_JSON_DEPTH = 32;

export interface TextProblem {
  /** Ajv-style path (`/a/0/b`) of the value. */
  path: string;
  problem: 'nulCharacter' | 'maxDepth';
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The first string or key holding U+0000, or the first value nested deeper than MAX_JSON_DEPTH.
 * Iterative, so a body nested a hundred thousand levels deep cannot overflow the stack.
 */
export function findTextProblem(value: unknown): TextProblem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return { path, problem: 'nulCharacter' };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { path, problem: 'maxDepth' };
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${path}/${i}`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const keyPath = `${path}/${pointer(keys[i])}`;
      if (keys[i].includes('\u0000')) return { path: keyPath, problem: 'nulCharacter' };
      stack.push({ value: (current as Record<string, unknown>)[keys[i]], path: keyPath, depth: depth + 1 });
    }
  }
  return null;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : parameterAjv;
  const compiled = ajv.compile(schema as object);
  // Fastify reads `errors` off the function it was given, so the wrapper carries its own.
  const validate = (data: unknown): boolean => {
    if (!compiled(data)) {
      validate.errors = compiled.errors;
      return false;
    }
    const found = findTextProblem(data);
    if (found === null) return true;
    validate.errors = [{ keyword: found.problem, instancePath: found.path, schemaPath: '', params: {} } satisfies ErrorObject];
    return false;
  };
  validate.errors = null as ErrorObject[] | null | undefined;
  return validate as never;
};

function fieldOf(error: ErrorObject): string {
  const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return base ? `${base}.${missing}` : missing;
  }
  return base;
}

function problemOf(error: ErrorObject): FieldProblem {
  const field = fieldOf(error);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field, reason: 'required' };
    case 'maxLength':
      return { field, reason: 'too_long', max: p.limit };
    case 'minLength':
      return { field, reason: 'too_short', min: p.limit };
    case 'maximum':
    case 'exclusiveMaximum':
    case 'minimum':
    case 'exclusiveMinimum':
      return { field, reason: 'out_of_range', [error.keyword.toLowerCase().includes('max') ? 'max' : 'min']: p.limit };
    case 'maxItems':
      return { field, reason: 'too_many', max: p.limit };
    case 'minItems':
      return { field, reason: 'too_few', min: p.limit };
    case 'type':
      return { field, reason: 'invalid_type', expected: p.type };
    case 'enum':
    case 'const':
      return { field, reason: 'invalid_value', allowed: p.allowedValues ?? [p.allowedValue] };
    case 'uniqueItems':
      return { field, reason: 'duplicate_items' };
    case 'nulCharacter':
      return { field, reason: 'contains_nul_character' };
    case 'maxDepth':
      return { field, reason: 'too_deeply_nested', max: MAX_JSON_DEPTH };
    default:
      return { field, reason: 'invalid_format' };
  }
}

/** Keep the first problem per field: Ajv may report several keywords for one value. */
function uniqueByField(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Map<string, FieldProblem>();
  for (const problem of problems) if (!seen.has(problem.field)) seen.set(problem.field, problem);
  return [...seen.values()];
}

export function validationFailure(context: string | undefined, errors: ErrorObject[]): ApiError {
  // anyOf/oneOf wrappers repeat what their branches already said.
  const relevant = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const problems = uniqueByField((relevant.length ? relevant : errors).map(problemOf));
  if (context === 'body') {
    if (problems.some((p) => p.field === '' && p.reason === 'invalid_type')) {
      return new ApiError(400, [{ code: 'malformed_body', context: { reason: 'expected_json_object' } }]);
    }
    return validationError(problems);
  }
  const first = problems[0] ?? { field: '', reason: 'invalid' };
  const { field, reason, ...detail } = first;
  return parameterError(field || context || 'request', reason, detail);
}
