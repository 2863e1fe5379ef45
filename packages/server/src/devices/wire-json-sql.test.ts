import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deviceWireJsonBody, deviceWireJsonMigration } from './wire-json-sql';

const MIGRATIONS = join(__dirname, '../../drizzle');

/** The body of devices_wire_json() as the newest migration that (re)defines it installs it. */
function installedBody(): { file: string; body: string } {
  const files = readdirSync(MIGRATIONS).filter((name) => name.endsWith('.sql')).sort();
  let found: { file: string; body: string } | undefined;
  for (const file of files) {
    const match = /FUNCTION devices_wire_json\(\) RETURNS trigger LANGUAGE plpgsql AS \$\$([\s\S]*?)\$\$;/.exec(readFileSync(join(MIGRATIONS, file), 'utf8'));
    if (match) found = { file, body: match[1] };
  }
  if (!found) throw new Error('no migration defines devices_wire_json()');
  return found;
}

describe('devices_wire_json() generated from the Device schema', () => {
  it('is the function the migrations install (else add the migration `npm run device-wire-sql` prints)', () => {
    expect(deviceWireJsonBody(), `drizzle/${installedBody().file} is stale`).toBe(installedBody().body);
  });

  it('writes every key of the schema once, in schema order, and rewrites stored rows', () => {
    const body = deviceWireJsonBody();
    const keys = [...body.matchAll(/[{,]"([a-z_]+)":/g)].map((match) => match[1]);
    expect(keys.slice(0, 4)).toEqual(['prn', 'organization_prn', 'inserted_at', 'updated_at']);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('reported_release_version');
    expect(deviceWireJsonMigration()).toMatch(/^CREATE OR REPLACE FUNCTION devices_wire_json\(\)[\s\S]*UPDATE devices SET wire_json = '';\n$/);
  });
});
