/**
 * The devices_wire_json() trigger function, generated from the Device schema (api-schemas.ts):
 * the one source of the device's wire shape. Keys come in schema order and each value's SQL
 * follows its schema (timestamps, booleans, arrays, JSON strings); only the prns built from ids
 * are declared here. The text must equal the function the migrations install: the test beside
 * this module fails when the schema changes without a migration, and `npm run device-wire-sql`
 * prints the migration to add.
 */
import type { Static, TSchema } from 'typebox';
import { Device } from './api-schemas';

type DeviceKey = keyof Static<typeof Device>;

/** Prns the database builds from ids: the resource type and the column holding its id. */
const PRNS_FROM_IDS: Partial<Record<DeviceKey, { type?: string; idColumn?: string }>> = {
  prn: { type: 'device', idColumn: 'id' },
  organization_prn: {},
  product_prn: { type: 'product', idColumn: 'product_id' },
  cohort_prn: { type: 'cohort', idColumn: 'cohort_id' },
};

const RFC3339_MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

function typesOf(schema: TSchema): string[] {
  const type = (schema as { type?: string | string[] }).type;
  return Array.isArray(type) ? type : type === undefined ? [] : [type];
}

/** The JSON text of a value the database keeps as it is; null when the column is null. */
function valueExpression(key: DeviceKey, schema: TSchema): string {
  const column = `NEW.${key}`;
  const types = typesOf(schema);
  if ((schema as { format?: string }).format === 'date-time') return `'"' || to_char(${column} at time zone 'UTC', ${RFC3339_MICROS}) || '"'`;
  if (types.includes('boolean')) return `${column}::text`;
  if (types.includes('array')) return `array_to_json(${column})::text`;
  if (types.includes('string')) return `to_json(${column})::text`;
  throw new Error(`devices_wire_json: no SQL for ${key} (schema type ${types.join('|') || 'unknown'})`);
}

/** One member of the object: `'{"key":' || value` for the first, `',"key":' || value` after. */
function member(key: DeviceKey, schema: TSchema, first: boolean): string {
  const open = `${first ? '{' : ','}"${key}":`;
  const prn = PRNS_FROM_IDS[key];
  // The row's own prn and its organization's are never null, so their text is written inline.
  if (prn && (prn.idColumn === undefined || prn.idColumn === 'id')) {
    const rest = prn.type ? `':${prn.type}:' || NEW.${prn.idColumn} || '"'` : `'"'`;
    return `'${open}"prn:1:' || NEW.organization_id || ${rest}`;
  }
  const value = prn ? `'"prn:1:' || NEW.organization_id || ':${prn.type}:' || NEW.${prn.idColumn} || '"'` : valueExpression(key, schema);
  return `'${open}' || coalesce(${value}, 'null')`;
}

/** The function's body: what pg_proc.prosrc holds once a migration installed it. */
export function deviceWireJsonBody(): string {
  const keys = Object.keys(Device.properties) as DeviceKey[];
  const lines = keys.map((key, index) => member(key, Device.properties[key] as TSchema, index === 0));
  return `\nBEGIN\n  NEW.wire_json :=\n    ${lines.join('\n    || ')}\n    || '}';\n  RETURN NEW;\nEND `;
}

/** The migration that installs the function and rewrites every stored device's JSON. */
export function deviceWireJsonMigration(): string {
  return [
    `CREATE OR REPLACE FUNCTION devices_wire_json() RETURNS trigger LANGUAGE plpgsql AS $$${deviceWireJsonBody()}$$;`,
    `--> statement-breakpoint`,
    `UPDATE devices SET wire_json = '';`,
    '',
  ].join('\n');
}
