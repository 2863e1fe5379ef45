/**
 * A resource's wire JSON written by the database, in the query that reads the row. Parsing a
 * row's columns, mapping them and serialising them again cost the server far more than the
 * database needs to write the text: a 100-row list page spent most of its time there. With a
 * projection, the server forwards one text value per row (see owned-json.ts).
 *
 * The text must be byte for byte what the route's response serialiser writes from the `*ToWire`
 * object: keys in the response schema's order (fast-json-stringify writes them in that order and
 * drops others), no whitespace (row_to_json's form), strings escaped as JSON.stringify does
 * (PostgreSQL's escaping agrees for every string a text column can hold), timestamps in the
 * wire's RFC 3339 form (time.ts) via to_char.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { TObject } from 'typebox';
import type { PrnType } from './prn';

/** One SQL expression per wire key. */
export type WireColumns = Record<string, SQL | PgColumn>;

/**
 * The sub-select (for `lateral ... "wire"`) whose row_to_json is the resource's wire object.
 * Throws at start-up when the expressions and the response schema disagree on the keys.
 */
export function wireProjection(item: TObject, columns: WireColumns): SQL {
  const keys = Object.keys(item.properties);
  const unknown = Object.keys(columns).filter((key) => !keys.includes(key));
  const missing = keys.filter((key) => !(key in columns));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(`wire projection does not match its schema: missing ${missing.join(', ') || '-'}, unknown ${unknown.join(', ') || '-'}`);
  }
  return sql`(select ${sql.join(
    keys.map((key) => sql`${columns[key]} as ${sql.identifier(key)}`),
    sql`, `,
  )})`;
}

const TYPE_NAME = /^[a-z_]+$/;

/** `prn:1:<org>:<type>:<id>`; null when `id` is null. */
export function prnSql(organizationId: PgColumn, type: PrnType, id: PgColumn): SQL {
  if (!TYPE_NAME.test(type)) throw new Error(`not a prn type: ${type}`);
  return sql`'prn:1:' || ${organizationId} || ${sql.raw(`':${type}:'`)} || ${id}`;
}

/** `prn:1:<org>` */
export function organizationPrnSql(organizationId: PgColumn): SQL {
  return sql`'prn:1:' || ${organizationId}`;
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` (time.ts's toRfc3339); null stays null. */
export function wireTimestampSql(column: PgColumn): SQL {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
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
