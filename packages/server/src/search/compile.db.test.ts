/**
 * The compiled SQL run by a real PostgreSQL (PGlite in memory): the rendered-text tests cannot
 * show that the LIKE escape, the numeric comparison and the parameter typing behave as meant.
 */
import { PGlite } from '@electric-sql/pglite';
import { asc, sql } from 'drizzle-orm';
import { bigint, boolean, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCondition, type SearchFields } from './search';

const things = pgTable('search_things', {
  name: text('name').notNull(),
  note: text('note'),
  count: integer('count').notNull(),
  bytes: bigint('bytes', { mode: 'number' }).notNull(),
  enabled: boolean('enabled').notNull(),
  ownerId: uuid('owner_id'),
  insertedAt: timestamp('inserted_at', { withTimezone: true, mode: 'string', precision: 6 }).notNull(),
  seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }),
});

const OWNER = '11111111-1111-4111-8111-111111111111';

const FIELDS = {
  name: { type: 'string', column: things.name, operators: [':', '-', '~', '<'] },
  note: { type: 'string', column: things.note, operators: [':'] },
  count: { type: 'number', column: things.count, operators: [':', '<', '<=', '>', '>='] },
  bytes: { type: 'number', column: things.bytes, operators: ['>'] },
  enabled: { type: 'boolean', column: things.enabled, operators: [':'] },
  owner_prn: { type: 'prn', column: things.ownerId, operators: [':'], resolve: (prn) => (prn === 'prn:owner' ? OWNER : null) },
  inserted_at: { type: 'datetime', column: things.insertedAt, operators: [':', '<', '>='] },
  seen_at: { type: 'datetime', column: things.seenAt, operators: ['>='] },
} satisfies SearchFields;

let client: PGlite;
let db: ReturnType<typeof drizzle>;

beforeAll(async () => {
  client = new PGlite();
  await client.exec(`
    create table search_things (name text not null, note text, count integer not null, bytes bigint not null,
      enabled boolean not null, owner_id uuid, inserted_at timestamptz(6) not null, seen_at timestamptz);
    insert into search_things values
      ('Gateway 100%',  'n',  1, 10,          true,  '${OWNER}', '2025-01-01 00:00:00.000001+00', '2025-03-01 00:00:00+00'),
      ('gateway_b',     null, 5, 5000000000,  false, null,       '2025-01-02 00:00:00+00',        null),
      ('gatewayXb',     null, 7, 20,          true,  null,       '2025-01-03 00:00:00+00',        null),
      ('back\\slash',   null, 9, 30,          false, null,       '2025-01-04 00:00:00+00',        null);
  `);
  db = drizzle(client);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

async function names(search: string): Promise<string[]> {
  const rows = await db.select({ name: things.name }).from(things).where(searchCondition(search, FIELDS)).orderBy(asc(things.insertedAt));
  return rows.map((row) => row.name);
}

describe('compiled search on PostgreSQL', () => {
  it.each<[string, string[]]>([
    ["name-'GATEWAY'", ['Gateway 100%', 'gateway_b', 'gatewayXb']],
    ["name~'gateway'", ['gateway_b', 'gatewayXb']],
    // % and _ are literal characters, not wildcards
    ["name-'100%'", ['Gateway 100%']],
    ["name-'y_b'", ['gateway_b']],
    ["name-'%'", ['Gateway 100%']],
    ["name-'\\\\'", ['back\\slash']],
    ["name:'gatewayXb'", ['gatewayXb']],
    ["name:'GATEWAYXB'", []],
    // PGlite orders text in the C collation: capitals before lower case
    ["name<'g'", ['Gateway 100%', 'back\\slash']],
    // integer columns compared as numeric: decimals and huge numbers neither fail nor truncate
    ['count>=5', ['gateway_b', 'gatewayXb', 'back\\slash']],
    ['count<5.5', ['Gateway 100%', 'gateway_b']],
    ['count<99999999999999999999999', ['Gateway 100%', 'gateway_b', 'gatewayXb', 'back\\slash']],
    ['count:-1', []],
    ['bytes>4294967296', ['gateway_b']],
    ['enabled:true', ['Gateway 100%', 'gatewayXb']],
    ['enabled:false and count>5', ['back\\slash']],
    ["owner_prn:'prn:owner'", ['Gateway 100%']],
    ["owner_prn:'prn:other'", []],
    ['owner_prn:null and note:null', ['gateway_b', 'gatewayXb', 'back\\slash']],
    // date-times at full precision, with offsets
    ["inserted_at:'2025-01-01T00:00:00.000001Z'", ['Gateway 100%']],
    ["inserted_at<'2025-01-01T00:00:00.000001Z'", []],
    ["inserted_at>='2025-01-02T01:00:00+01:00'", ['gateway_b', 'gatewayXb', 'back\\slash']],
    ["seen_at>='2025-02-01T00:00:00Z'", ['Gateway 100%']],
    ["name-'gate' and enabled:true and count>1 and inserted_at>='2025-01-01T00:00:00Z' and owner_prn:null", ['gatewayXb']],
  ])('%s', async (search, expected) => {
    expect(await names(search)).toEqual(expected);
  });

  it('matches nothing, rather than failing, for an enum value outside the enum when the column is cast to text', async () => {
    await client.exec("create type search_colour as enum ('red', 'green'); alter table search_things add column colour search_colour not null default 'red'");
    const colour = sql`${sql.identifier('colour')}::text`;
    const fields = { colour: { type: 'string', column: colour, operators: [':', '-'] } } satisfies SearchFields;
    const count = async (search: string) => (await db.select({ name: things.name }).from(things).where(searchCondition(search, fields))).length;
    expect(await count("colour:'blue'")).toBe(0);
    expect(await count("colour-'RE'")).toBe(4);
  });
});
