/**
 * Request validation: two Ajv instances, because the rules differ by where a value comes from.
 * Query strings, path parameters and headers are text and are coerced to the schema's types;
 * JSON bodies are typed already, so `"size": "12"` is a 422, not silently 12.
 * Ajv's errors are turned into the contract's shape: 422 per failing body field, 400 for a
 * malformed parameter.
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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : parameterAjv;
  return ajv.compile(schema as object) as never;
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
