/**
 * One rule for every route's path parameters, schema or not: no control characters (C0 and DEL).
 * No identifier, name or token of ours holds one, and a parameter that reaches a header (a
 * Location) or a log line must not carry CR/LF there. NUL keeps the reason every other text
 * input gives it (validation.ts).
 */
import type { FastifyRequest } from 'fastify';
import { parameterError } from './errors';

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function checkPathParameters(request: FastifyRequest): void {
  const params = request.params as Record<string, unknown> | undefined;
  if (!params) return;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string' || !CONTROL_CHARACTER.test(value)) continue;
    throw parameterError(name, value.includes('\u0000') ? 'contains_nul_character' : 'contains_control_character');
  }
}
