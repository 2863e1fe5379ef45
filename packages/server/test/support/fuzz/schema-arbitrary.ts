/**
 * Values from a route's JSON schema (as the OpenAPI document states it): valid-looking ones that
 * reach the handlers, and the same with one place made hostile. Only the keywords our route
 * schemas use are understood; anything else falls back to arbitrary JSON.
 */
import fc from 'fast-check';
import { hostileString, malformedCursor, hostileSearch, wrongValue } from './values';

export type JsonSchema = Record<string, any>;

export interface ValueContext {
  /** Real prns by type word (`device`, `product`...), harvested from the server. */
  prnsByType: Map<string, string[]>;
  organizationIds: string[];
  /**
   * Values that name real rows by a parameter's name, for the legacy API's names, serials and
   * uuids (`org_name`, `firmware_uuid`, `x-canopy-uuid`...): see legacy-population.ts.
   */
  namedValues?: Map<string, string[]>;
}

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  date: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  uri: fc.constantFrom('https://hooks.fuzz.invalid/in', 'http://127.0.0.1:9/x', 'https://[::1]:1/', 'https://169.254.169.254/latest'),
  email: fc.emailAddress(),
  uuid: fc.uuid(),
  ipv4: fc.ipV4(),
  hostname: fc.domain(),
};

/** The type word a field's prn should have, from its name: `product_prn` -> `product`. */
export function prnTypeOf(fieldName: string | undefined, fallback?: string): string | undefined {
  if (!fieldName) return fallback;
  const match = /^(.*)_prns?$/.exec(fieldName);
  return match ? match[1] : fallback;
}

function realPrn(context: ValueContext, type: string | undefined): fc.Arbitrary<string> | null {
  const pool = type ? context.prnsByType.get(type) : [...context.prnsByType.values()].flat();
  return pool && pool.length > 0 ? fc.constantFrom(...pool) : null;
}

function stringOf(schema: JsonSchema, context: ValueContext, name: string | undefined): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 64, min + 64);
  if (name === 'page') return fc.oneof(malformedCursor, fc.constant(''));
  if (name === 'search') return hostileSearch;
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format];
  const looksLikePrn = name === 'prn' || name?.endsWith('_prn') || String(schema.pattern ?? '').startsWith('^prn');
  if (looksLikePrn) {
    const real = realPrn(context, prnTypeOf(name));
    return real ?? realPrn(context, undefined) ?? fc.constant('prn:1:00000000-0000-0000-0000-000000000000:device:00000000-0000-0000-0000-000000000000');
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
    } catch {
      // a pattern fast-check cannot invert: plain text instead
    }
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

function numberOf(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 0) + 100_000);
  return schema.type === 'integer' ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
}

/** A value that satisfies `schema` (mostly: patterns and formats are best effort). */
export function validValue(schema: JsonSchema | undefined, context: ValueContext, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  const named = name ? context.namedValues?.get(name) : undefined;
  if (named && (schema.type === 'string' || schema.type === undefined)) {
    return fc.oneof({ arbitrary: fc.constantFrom(...named), weight: 3 }, { arbitrary: validValue(schema, { ...context, namedValues: undefined }, name, depth), weight: 1 });
  }
  // The schema's own examples reach past checks random values never pass (`state: "closed"`, a
  // CIDR block); prn examples name nothing real, so prns come from the harvested pool instead.
  const looksLikePrn = name === 'prn' || name?.endsWith('_prn') || name?.endsWith('_prns');
  if (Array.isArray(schema.examples) && schema.examples.length > 0 && !looksLikePrn) {
    return fc.oneof({ arbitrary: fc.constantFrom(...schema.examples), weight: 2 }, { arbitrary: validValue({ ...schema, examples: undefined }, context, name, depth), weight: 1 });
  }
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((branch: JsonSchema) => validValue(branch, context, name, depth + 1)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type }, context, name, depth + 1)));
  switch (types[0]) {
    case 'string':
      return stringOf(schema, context, name);
    case 'integer':
    case 'number':
      return numberOf(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? 4, minLength + 4);
      return fc.array(validValue(schema.items, context, prnTypeOf(name) ? `${prnTypeOf(name)}_prn` : name, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const properties: Record<string, JsonSchema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      if (Object.keys(properties).length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) record[key] = validValue(property, context, key, depth + 1);
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value for `schema` with one place wrong: the value itself, or one property deep inside. */
export function hostileValue(schema: JsonSchema | undefined, context: ValueContext, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const wrong = wrongValue(context.organizationIds);
  const properties: Record<string, JsonSchema> | undefined = schema?.properties;
  if (!properties || Object.keys(properties).length === 0 || depth > 4) {
    return fc.oneof(wrong, schema?.maxLength ? fc.constant('y'.repeat(schema.maxLength + 1)) : hostileString);
  }
  const keys = Object.keys(properties);
  return fc.oneof(
    { arbitrary: wrong, weight: 1 },
    {
      arbitrary: fc
        .tuple(validValue(schema, context, name, depth) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...keys))
        .chain(([base, key]) => hostileValue(properties[key], context, key, depth + 1).map((bad) => ({ ...base, [key]: bad }))),
      weight: 6,
    },
    {
      arbitrary: validValue(schema, context, name, depth).map((base) => ({ ...(base as object), ...JSON.parse('{"__proto__":{"role":"admin","organization_id":"x"}}') })),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(validValue(schema, context, name, depth), fc.constantFrom(...keys)).map(([base, key]) => {
        const copy = { ...(base as Record<string, unknown>) };
        delete copy[key];
        return copy;
      }),
      weight: 1,
    },
  );
}

/** The value the schema's own examples spell out (each property's first example), or undefined. */
export function exampleValue(schema: JsonSchema | undefined): unknown {
  if (!schema) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (!schema.properties) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries<JsonSchema>(schema.properties)) {
    const value = exampleValue(property);
    if (value !== undefined) out[key] = value;
  }
  return out;
}
