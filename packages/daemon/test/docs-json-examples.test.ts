/**
 * The JSON examples of the daemon's docs pages (site/docs/canopy-core/tools/canopy-daemon/) are
 * what the daemon accepts: each goes through the daemon's own code, so an example it would
 * refuse fails CI.
 *
 *   - run-time-configuration/overview.md: the complete configuration, through validateConfig;
 *   - remote-access-tunnels.md, delta-updates.md and uboot-environment/schema.md: fragments of a configuration,
 *     validated merged into that complete example; the fw_env.config `text` block of
 *     uboot-environment/schema.md must name the same locations as its JSON;
 *   - custom-metadata/overview.md and each installers/ page: the example, through parseCanopyMetadata;
 *   - custom-metadata/schema.md: the JSON Schema the page publishes, turned into cases (each
 *     enum value, default, bound, pattern, required key and additionalProperties) that
 *     parseCanopyMetadata must decide as the schema does.
 *
 * Each checked block carries `tested-by="packages/daemon/test/docs-json-examples.test.ts"`, which
 * site/test/codeBlocks.test.ts accepts only because this file names the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fencedBlocks, markdownFiles, type FencedBlock } from '../../../site/test/helpers/shellBlocks';
import { validateConfig } from '../src/config/schema.ts';
import { INSTALLER_NAMES, parseCanopyMetadata } from '../src/installers/metadata.ts';
import { locationsFromConfig, parseFwEnvConfig } from '../src/uboot-env/locations.ts';
import { DAEMON_ROOT } from './support/harness';

const REPO = path.resolve(DAEMON_ROOT, '../..');
const PAGES_DIR = 'site/docs/canopy-core/tools/canopy-daemon';
const THIS_TEST = 'packages/daemon/test/docs-json-examples.test.ts';

const RUN_TIME_OVERVIEW = `${PAGES_DIR}/run-time-configuration/overview.md`;
const TUNNELS = `${PAGES_DIR}/remote-access-tunnels.md`;
const DELTAS = `${PAGES_DIR}/delta-updates.md`;
const UBOOT_SCHEMA = `${PAGES_DIR}/uboot-environment/schema.md`;
const METADATA_OVERVIEW = `${PAGES_DIR}/custom-metadata/overview.md`;
const METADATA_SCHEMA = `${PAGES_DIR}/custom-metadata/schema.md`;
/** One page per installer (installers/tar.md, deb.md, rpm.md, rauc.md, swupdate.md), each with its metadata example. */
const INSTALLER_PAGES = fs.readdirSync(path.join(REPO, PAGES_DIR, 'installers')).filter((f) => f.endsWith('.md')).map((f) => `${PAGES_DIR}/installers/${f}`);
const CHECKED_PAGES = [RUN_TIME_OVERVIEW, TUNNELS, DELTAS, UBOOT_SCHEMA, METADATA_OVERVIEW, METADATA_SCHEMA, ...INSTALLER_PAGES];

const blocksOf = (page: string) => fencedBlocks(page, fs.readFileSync(path.join(REPO, page), 'utf8'));
const allBlocks = markdownFiles(path.join(REPO, PAGES_DIR)).flatMap((file) => blocksOf(path.relative(REPO, file)));

/** The one block of `lang` on `page`: a second one would go unchecked, so it fails here. */
function only(page: string, lang: string): FencedBlock {
  const found = blocksOf(page).filter((b) => b.lang === lang);
  expect(found.map((b) => `${b.file}:${b.line}`), `${page} should have exactly one ${lang} block`).toHaveLength(1);
  return found[0];
}
const jsonOf = (page: string) => JSON.parse(only(page, 'json').code) as Record<string, unknown>;
const completeConfiguration = () => jsonOf(RUN_TIME_OVERVIEW);

it('checks every JSON block of the daemon pages, and each checked block says so', () => {
  const json = allBlocks.filter((b) => b.lang === 'json');
  // A block another test checks says which (tested-by), and that test reads the block itself.
  const elsewhere = (b: { meta: string }) => /tested-by="/.test(b.meta) && !b.meta.includes(`tested-by="${THIS_TEST}"`);
  expect(json.filter((b) => b.norun === null && !CHECKED_PAGES.includes(b.file) && !elsewhere(b)).map((b) => `${b.file}:${b.line}`), 'a JSON block no case here checks').toEqual([]);
  const marked = allBlocks.filter((b) => b.meta.includes(`tested-by="${THIS_TEST}"`)).map((b) => `${b.file}:${b.line}`);
  const checked = [...CHECKED_PAGES.map((page) => only(page, 'json')), only(UBOOT_SCHEMA, 'text')].map((b) => `${b.file}:${b.line}`);
  expect(marked.sort()).toEqual(checked.sort());
});

describe('run-time configuration examples', () => {
  it('the complete example of run-time-configuration/overview.md is valid as it stands', () => {
    const config = validateConfig(completeConfiguration());
    expect(config.remote_access_tunnels.cidr_blocks).toEqual(['10.250.0.0/16', '10.251.0.0/16']);
  });

  it('the tunnel restrictions of remote-access-tunnels.md are valid and kept as written', () => {
    const fragment = jsonOf(TUNNELS);
    const config = validateConfig({ ...completeConfiguration(), ...fragment });
    expect(config.remote_access_tunnels).toEqual(fragment.remote_access_tunnels);
  });

  it('the deltas settings of delta-updates.md are valid and kept as written', () => {
    const fragment = jsonOf(DELTAS);
    expect(validateConfig({ ...completeConfiguration(), ...fragment }).deltas).toEqual(fragment.deltas);
  });

  it('the uboot_environment of uboot-environment/schema.md is valid, names the default variables, and matches its fw_env.config', () => {
    const fragment = jsonOf(UBOOT_SCHEMA) as { uboot_environment: { copies: { device: string; offset: string; size: string }[]; variables: Record<string, string> } };
    const config = validateConfig({ ...completeConfiguration(), ...fragment });
    expect(config.uboot_environment!.variables).toEqual(fragment.uboot_environment.variables);
    // The page's variables are the defaults its table gives: leaving them out changes nothing.
    const withoutNames = validateConfig({ ...completeConfiguration(), uboot_environment: { copies: fragment.uboot_environment.copies } });
    expect(withoutNames.uboot_environment!.variables).toEqual(fragment.uboot_environment.variables);
    expect(parseFwEnvConfig(only(UBOOT_SCHEMA, 'text').code)).toEqual(locationsFromConfig(fragment.uboot_environment.copies));
  });
});

describe('custom metadata examples', () => {
  it('the example of custom-metadata/overview.md is accepted: a file install without reboot', () => {
    expect(parseCanopyMetadata(jsonOf(METADATA_OVERVIEW))).toEqual({
      ok: true,
      metadata: { installer: 'file', reboot_required: false, file: { path: '/data/models/detector.onnx', mode: 0o644 } },
    });
  });

  it.each(INSTALLER_PAGES)('the metadata example of %s is accepted and names the page\'s installer', (page) => {
    const result = parseCanopyMetadata(jsonOf(page));
    expect(result.ok && result.metadata.installer, JSON.stringify(result)).toBe(path.basename(page, '.md'));
  });

  /** The subset of JSON Schema the page uses. */
  interface Schema {
    type?: string;
    enum?: unknown[];
    default?: unknown;
    pattern?: string;
    minimum?: number;
    maximum?: number;
    properties?: Record<string, Schema>;
    required?: string[];
    additionalProperties?: boolean;
  }
  type Case = { why: string; canopy: unknown; valid: boolean };

  // A `canopy` object using every key, valid; each case changes one thing in it.
  const BASE = { installer: 'script', reboot_required: false, file: { path: '/data/x.bin', mode: '0600' }, script: { path: '/usr/bin/install-x', timeout_seconds: 5 }, tar: { path: '/opt/x', uid: 0, gid: 0, umask: '0022' }, deb: { allow_downgrade: false }, rpm: { allow_downgrade: false }, min_free_bytes: 0 };
  // Strings each pattern is tried with: the parser must accept exactly those the pattern matches.
  const PATTERN_PROBES = ['/data/x.bin', 'data/x.bin', '0644', '0755', '644', '0800', '00644', ''];

  const clone = <T>(value: T): T => structuredClone(value);
  function at(object: unknown, keys: string[]): unknown {
    return keys.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], object);
  }
  function changed(keys: string[], change: (parent: Record<string, unknown>, key: string) => void): unknown {
    const copy = clone(BASE) as Record<string, unknown>;
    change(keys.length === 0 ? { '': copy } : (at(copy, keys.slice(0, -1)) as Record<string, unknown>), keys.at(-1) ?? '');
    return copy;
  }
  const set = (keys: string[], value: unknown) => (keys.length === 0 ? value : changed(keys, (parent, key) => (parent[key] = value)));
  const without = (keys: string[]) => changed(keys, (parent, key) => delete parent[key]);

  /** The cases a schema node implies, at `keys` inside the `canopy` object. */
  function casesOf(node: Schema, keys: string[]): Case[] {
    const where = keys.join('.') || 'canopy';
    const cases: Case[] = [];
    if (node.enum) {
      for (const value of node.enum) cases.push({ why: `${where} = ${JSON.stringify(value)} (in the enum)`, canopy: set(keys, value), valid: true });
      cases.push({ why: `${where} outside the enum`, canopy: set(keys, 'not-in-the-enum'), valid: false });
    }
    if (node.type === 'boolean') cases.push({ why: `${where} a string`, canopy: set(keys, 'yes'), valid: false }, { why: `${where} true`, canopy: set(keys, true), valid: true });
    if (node.type === 'integer') {
      cases.push({ why: `${where} a fraction`, canopy: set(keys, 1.5), valid: false }, { why: `${where} a string`, canopy: set(keys, '1'), valid: false });
      if (node.minimum !== undefined) cases.push({ why: `${where} = minimum`, canopy: set(keys, node.minimum), valid: true }, { why: `${where} below minimum`, canopy: set(keys, node.minimum - 1), valid: false });
      if (node.maximum !== undefined) cases.push({ why: `${where} = maximum`, canopy: set(keys, node.maximum), valid: true }, { why: `${where} above maximum`, canopy: set(keys, node.maximum + 1), valid: false });
    }
    if (node.type === 'string') {
      cases.push({ why: `${where} a number`, canopy: set(keys, 42), valid: false });
      if (node.pattern) {
        const pattern = new RegExp(node.pattern);
        for (const probe of PATTERN_PROBES) cases.push({ why: `${where} = ${JSON.stringify(probe)} against ${node.pattern}`, canopy: set(keys, probe), valid: pattern.test(probe) });
      }
    }
    if (node.type === 'object') {
      cases.push({ why: `${where} not an object`, canopy: set(keys, 'x'), valid: false });
      for (const key of node.required ?? []) cases.push({ why: `${where}.${key} left out (required)`, canopy: without([...keys, key]), valid: false });
      cases.push({ why: `an unknown key in ${where}`, canopy: set([...keys, 'x_unknown'], 1), valid: node.additionalProperties !== false });
      for (const [key, child] of Object.entries(node.properties ?? {})) cases.push(...casesOf(child, [...keys, key]));
    }
    return cases;
  }

  /** Each `default` of the schema, with the key left out, as the parser gives it back. */
  function defaultsOf(node: Schema, keys: string[]): { where: string; canopy: unknown; keys: string[]; value: unknown }[] {
    const own = node.default === undefined ? [] : [{ where: keys.join('.'), canopy: without(keys), keys, value: node.default }];
    return [...own, ...Object.entries(node.properties ?? {}).flatMap(([key, child]) => defaultsOf(child, [...keys, key]))];
  }

  const schema = () => jsonOf(METADATA_SCHEMA) as Schema;

  it('the schema of custom-metadata/schema.md names the keys and installers the parser knows', () => {
    const keysOf = (node: Schema | undefined) => Object.keys(node?.properties ?? {}).sort();
    expect(keysOf(schema())).toEqual(Object.keys(BASE).sort());
    expect(keysOf(schema().properties!.file)).toEqual(Object.keys(BASE.file).sort());
    expect(keysOf(schema().properties!.script)).toEqual(Object.keys(BASE.script).sort());
    expect(keysOf(schema().properties!.tar)).toEqual(Object.keys(BASE.tar).sort());
    expect(keysOf(schema().properties!.deb)).toEqual(Object.keys(BASE.deb).sort());
    expect(keysOf(schema().properties!.rpm)).toEqual(Object.keys(BASE.rpm).sort());
    expect(schema().properties!.installer.enum).toEqual([...INSTALLER_NAMES]);
    expect(parseCanopyMetadata({ canopy: BASE }).ok).toBe(true);
  });

  it('the parser decides as the schema of custom-metadata/schema.md does', () => {
    const cases = casesOf(schema(), []);
    expect(cases.length).toBeGreaterThan(40);
    const wrong = cases.filter((c) => parseCanopyMetadata({ canopy: c.canopy }).ok !== c.valid).map((c) => `${c.why}: the schema says ${c.valid ? 'valid' : 'invalid'}`);
    expect(wrong).toEqual([]);
  });

  it('the parser applies the defaults of custom-metadata/schema.md', () => {
    const defaults = defaultsOf(schema(), []);
    expect(defaults.map((d) => d.where).sort()).toEqual(['deb.allow_downgrade', 'file.mode', 'installer', 'reboot_required', 'rpm.allow_downgrade', 'script.timeout_seconds', 'tar.umask']);
    for (const d of defaults) {
      const result = parseCanopyMetadata({ canopy: d.canopy });
      expect(result.ok, d.where).toBe(true);
      // The parser hands the mode on as a number, ready for chmod.
      const expected = d.where === 'file.mode' || d.where === 'tar.umask' ? Number.parseInt(d.value as string, 8) : d.value;
      expect(result.ok && at(result.metadata, d.keys), d.where).toEqual(expected);
    }
  });
});
