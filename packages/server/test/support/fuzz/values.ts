/**
 * The hostile values the route fuzzer mixes into requests: what a careless or malicious client
 * sends (wrong types, huge and control-character strings, prototype keys, numbers past 2^53,
 * malformed prns and cursors, the search language at its limits). Each is a fast-check arbitrary
 * so a run is reproducible from its seed.
 */
import fc from 'fast-check';
import { searchLikeInput } from '../../../src/search/arbitraries.test-support';

/** JSON text spliced into a body where a string marker stands: numbers JSON.stringify cannot write. */
export const RAW_NUMBER_TEXTS = ['9007199254740993', '-9007199254740993', '1e400', '-1e400', '123456789012345678901234567890', '0.0000000000000000000001', '1E+2', '-0'];

const uuid = fc.uuid({ version: 4 });

/** Strings that break naive handling: NUL and control bytes, lone surrogates, long runs, SQL and path text. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '\u0000',
    'name\u0000with-nul',
    '\u0000'.repeat(64),
    '\ud800',
    'tail\udfff',
    '\u202e\u0301',
    '\r\n\t\u0007\u001b[31m',
    "' or 1=1 --",
    '"; drop table devices; --',
    '../../../../etc/passwd',
    '%00',
    '%zz',
    '${jndi:ldap://x}',
    '{{7*7}}',
    '__proto__',
    'constructor',
    '🌲'.repeat(300),
    'null',
    'true',
    '1e400',
  ),
  fc.integer({ min: 100, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
);

/** prn-shaped text that is not a prn of this organization, or not a prn at all. */
export function malformedPrn(organizationIds: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('prn', 'prn:', 'prn:1', 'prn:1:', 'prn:2:x:y:z', 'prn:1::device:', 'PRN:1:X:DEVICE:Y', 'prn:1:' + 'a'.repeat(300), 'prn:1:%00:device:%00'),
    fc.tuple(uuid, fc.constantFrom('device', 'product', 'binary', 'release', 'nope', 'DEVICE', 'device\u0000', ''), uuid).map(([o, t, i]) => `prn:1:${o}:${t}:${i}`),
    fc.tuple(fc.constantFrom(...organizationIds), fc.constantFrom('device', 'product', 'cohort', 'artifact', 'webhook'), uuid).map(([o, t, i]) => `prn:1:${o}:${t}:${i}`),
    fc.tuple(fc.constantFrom(...organizationIds), uuid).map(([o, i]) => `prn:1:${o}:device:${i.toUpperCase()}`),
    fc.tuple(fc.constantFrom(...organizationIds), fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 })).map(([o, t, i]) => `prn:1:${o}:${t}:${i}`),
  );
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64url');

/** `page` cursors: well-formed base64url of wrong contents, impossible dates, garbage. */
export const malformedCursor: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    b64(['9999-99-99 99:99:99', '00000000-0000-0000-0000-000000000000']),
    b64(['2024-02-30 25:61:61.999999+99', '00000000-0000-0000-0000-000000000000']),
    b64(['0000-00-00T00:00:00Z', '00000000-0000-0000-0000-000000000000']),
    b64(['2024-01-01 00:00:00', '00000000-0000-0000-0000-000000000000', 3]),
    b64({ insertedAt: '2024-01-01', id: 'x' }),
    b64('null'),
    b64('[]'),
    b64('["\\u0000", "\\u0000"]'),
    '====',
    'A',
    '-_-_',
    'x'.repeat(201),
  ),
  fc.tuple(fc.date({ min: new Date(-62_000_000_000_000), max: new Date(250_000_000_000_000), noInvalidDate: true }), uuid).map(([d, id]) => b64([d.toISOString(), id])),
  fc.string({ unit: 'binary', maxLength: 60 }).map(b64),
  fc.base64String({ maxLength: 60 }),
);

/** The search language at its limits: random text, nearly-valid clauses, max length and clause counts. */
export const hostileSearch: fc.Arbitrary<string> = fc.oneof(
  searchLikeInput,
  fc.constantFrom(
    "name:'" + 'a'.repeat(1990) + "'",
    Array.from({ length: 200 }, (_, i) => `name:'n${i}'`).join(' and '),
    "inserted_at>='99999-01-01T00:00:00Z'",
    "inserted_at<'2024-13-45'",
    'size>=99999999999999999999999999',
    "name~'%'",
    "name-'\\'",
    "custom_metadata.a.b.c:'x'",
    "tags:'\u0000'",
    "name:'\u0000'",
    "prn:'prn:1:x'",
    'identifier<=-1e400',
    "description:null and name-'x' and inserted_at>'2020-01-01'",
  ),
  fc.string({ unit: 'grapheme', minLength: 1900, maxLength: 2100 }),
);

/** Whole bodies that are not the object a route expects. */
export const hostileBody: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, 'text', [], [{}], {}, JSON.parse('{"__proto__":{"role":"admin"}}')),
  fc.jsonValue({ maxDepth: 4 }),
);

/** Raw body bytes no JSON serializer would write. */
export const rawBodies: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    Buffer.from('{"name":"\xff\xfe"}', 'latin1'),
    Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    Buffer.from('{"name":"a\\u0000b"}'),
    Buffer.from('{"__proto__":{"role":"admin"},"name":"p"}'),
    Buffer.from('{"constructor":{"prototype":{"x":1}}}'),
    Buffer.from('{"name":'),
    Buffer.from('\u0000'),
    Buffer.from('['.repeat(600_000)),
    Buffer.from('{"a":'.repeat(100_000)),
    Buffer.from('{"name": "x", "name": "y"}'),
    Buffer.from('\ufeff{"name":"bom"}'),
  ),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  // Deep nesting, written as text: valid JSON far deeper than any schema goes.
  fc.integer({ min: 50, max: 200_000 }).map((depth) => Buffer.from('['.repeat(depth) + ']'.repeat(depth))),
  fc.integer({ min: 50, max: 100_000 }).map((depth) => Buffer.from('{"a":'.repeat(depth) + '{}' + '}'.repeat(depth))),
);

/** A value of the wrong kind for any field. */
export function wrongValue(organizationIds: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    hostileString,
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, -(2 ** 53) - 2, Number.MAX_VALUE, [], {}, [null], JSON.parse('{"__proto__":{"x":1}}')),
    fc.constantFrom(...RAW_NUMBER_TEXTS).map((text) => ({ [RAW_MARKER]: text })),
    malformedPrn(organizationIds),
    fc.array(hostileString, { maxLength: 5 }),
    fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a\u0000', ''), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  );
}

/** Stands for raw JSON text in a generated body (see RAW_NUMBER_TEXTS); serialize() splices it in. */
export const RAW_MARKER = '__fuzz_raw_json__';

/** JSON text of a generated body, with raw number texts spliced where a RAW_MARKER object stands. */
export function serialize(body: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_key, value) => {
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && RAW_MARKER in value) {
      raws.push(String(value[RAW_MARKER]));
      return `__RAW_${raws.length - 1}__`;
    }
    return value;
  });
  return (text ?? 'null').replace(/"__RAW_(\d+)__"/g, (_, i) => raws[Number(i)]);
}
