/**
 * `expand` parameters: `expand=a,b`, `expand=a&expand=b` or `expand[]=a`, each checked against
 * the route's whitelist, so a typo is a 400 rather than a silently smaller answer.
 */
import { Type } from 'typebox';
import { parameterError } from './errors';

export function ExpandQuery(allowed: readonly string[]) {
  return Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: `Related data to include, comma-separated or repeated: ${allowed.join(', ')}.`,
      examples: [allowed.slice(0, 2).join(',')],
    }),
  );
}

export function parseExpand<T extends string>(raw: unknown, allowed: readonly T[]): Set<T> {
  if (raw === undefined || raw === null || raw === '') return new Set();
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter(Boolean);
  const result = new Set<T>();
  for (const value of values) {
    if (!(allowed as readonly string[]).includes(value)) throw parameterError('expand', 'unknown_value', { value, allowed });
    result.add(value as T);
  }
  return result;
}
