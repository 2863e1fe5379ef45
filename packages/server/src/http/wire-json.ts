/**
 * A resource's wire JSON written by the database, in the query that reads the row. Parsing a
 * row's columns, mapping them and serialising them again cost the server far more than the
 * database needs to write the text: a 100-row list page spent most of its time there. With a
 * wire object expression, the server forwards one text value per row (see owned-json.ts).
 *
 * The text must be byte for byte what the route's response serialiser writes from the `*ToWire`
 * object: keys in the response schema's order (fast-json-stringify writes them in that order and
 * drops others), no whitespace, strings escaped as JSON.stringify does (PostgreSQL's to_json
 * escaping agrees for every string a text column can hold), timestamps in the wire's RFC 3339
 * form (time.ts) via to_char.
 *
 * The object is one text concatenation, each value encoded by the kind its schema gives it:
 * row_to_json over a sub-select cost PostgreSQL about twice as much per row (it looks up how to
 * write each field's type on every row), and a list page's rows are most of its cost.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { TObject } from 'typebox';
import type { PrnType } from './prn';

/** One SQL expression per wire key. */
export type WireColumns = Record<string, SQL | PgColumn>;

/**
 * Expressions whose text never needs JSON escaping (prns and wire timestamps: hex digits, dashes,
 * colons and ASCII letters), so they are quoted rather than passed through to_json.
 */
const PLAIN_TEXT = new WeakSet<SQL>();

function plainText(expression: SQL): SQL {
  PLAIN_TEXT.add(expression);
  return expression;
}

/** The JSON types a schema allows for a key (`type: 'string'` or `type: ['string', 'null']`). */
function schemaTypes(schema: unknown): string[] {
  const type = (schema as { type?: string | string[] }).type;
  return type === undefined ? [] : Array.isArray(type) ? type : [type];
}

/**
 * The JSON text of one value, `null` for SQL NULL (a NULL would otherwise blank the whole
 * concatenation). Booleans cast to text write true/false; string arrays go through array_to_json;
 * everything else through to_json, as row_to_json would write it.
 */
function jsonValueSql(schema: unknown, value: SQL | PgColumn): SQL {
  const types = schemaTypes(schema).filter((type) => type !== 'null');
  const kind = types.length === 1 ? types[0] : 'any';
  if (kind === 'string' && PLAIN_TEXT.has(value as SQL)) return sql`coalesce('"' || ${value} || '"', 'null')`;
  if (kind === 'boolean') return sql`coalesce((${value})::text, 'null')`;
  // A text[] column; an array held any other way (jsonb) keeps to_json.
  if (kind === 'array' && schemaTypes((schema as { items?: unknown }).items).join() === 'string') {
    return sql`coalesce(array_to_json(${value})::text, 'null')`;
  }
  return sql`coalesce(to_json(${value})::text, 'null')`;
}

/**
 * The text expression of the resource's wire object: `{"key":value,...}` in the schema's order.
 * Throws at start-up when the expressions and the response schema disagree on the keys.
 */
export function wireObjectSql(item: TObject, columns: WireColumns): SQL {
  const keys = Object.keys(item.properties);
  const unknown = Object.keys(columns).filter((key) => !keys.includes(key));
  const missing = keys.filter((key) => !(key in columns));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(`wire projection does not match its schema: missing ${missing.join(', ') || '-'}, unknown ${unknown.join(', ') || '-'}`);
  }
  const parts = keys.map((key, index) => {
    const prefix = `${index === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    return sql`${sql.raw(quoteLiteral(prefix))} || ${jsonValueSql(item.properties[key], columns[key])}`;
  });
  return sql`(${sql.join(parts, sql` || `)} || '}')`;
}

/** A SQL string literal (standard_conforming_strings: only quotes are doubled). */
function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

const TYPE_NAME = /^[a-z_]+$/;

/** `prn:1:<org>:<type>:<id>`; null when `id` is null. */
export function prnSql(organizationId: PgColumn, type: PrnType, id: PgColumn): SQL {
  if (!TYPE_NAME.test(type)) throw new Error(`not a prn type: ${type}`);
  return plainText(sql`'prn:1:' || ${organizationId} || ${sql.raw(`':${type}:'`)} || ${id}`);
}

/** `prn:1:<org>` */
export function organizationPrnSql(organizationId: PgColumn): SQL {
  return plainText(sql`'prn:1:' || ${organizationId}`);
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` (time.ts's toRfc3339); null stays null. */
export function wireTimestampSql(column: PgColumn): SQL {
  return plainText(sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
}

interface OwnedColumns {
  id: PgColumn;
  organizationId: PgColumn;
  insertedAt: PgColumn;
  updatedAt: PgColumn;
}

/** The expressions of wire-fields.ts's shared fields: prn, organization_prn and the two timestamps. */
export function ownedWireColumns(type: PrnType, table: OwnedColumns): WireColumns {
  return {
    prn: prnSql(table.organizationId, type, table.id),
    organization_prn: organizationPrnSql(table.organizationId),
    inserted_at: wireTimestampSql(table.insertedAt),
    updated_at: wireTimestampSql(table.updatedAt),
  };
}
