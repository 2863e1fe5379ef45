/**
 * Every code example on the site is executed somewhere, or says why it cannot be. This test reads
 * every fenced block of the hand-written pages (the generated CLI pages come from the recorded
 * session of cliExamples.test.ts) and fails for a block none of these account for:
 *
 *   - `sh` on a guide page: guides.test.ts runs it, in reading order, unless it has `norun`;
 *   - `sh` on a daemon page (docs/canopy-core/tools/canopy-daemon/): the daemon's
 *     packages/daemon/test/docs-pages.test.ts runs every such block, in one shell against a real
 *     server and daemon, unless it has `norun` (it fails a `norun` without a reason);
 *   - `sh ... test`: examples.test.ts runs it against a real server;
 *   - `ts ... test`: tsExamples.test.ts type-checks and runs it against a real server;
 *   - `json ... schema="METHOD /path STATUS"` (an answer) or `schema="METHOD /path request"` (a
 *     request body), optionally `at="key[]..."` for a part of it and `partial` for a fragment
 *     that leaves required fields out: checked here against the server's own OpenAPI document,
 *     so a field the API does not have, a wrong type or a value outside an enum fails;
 *   - `tested-by="path/to/a.test.ts"`: another test runs it; that file must exist and read this
 *     page (name it);
 *   - `norun="reason"`: not run, for the reason given (at least 10 characters);
 *   - `text`: output, diagrams and file templates, not commands.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fencedBlocks, type FencedBlock } from './helpers/shellBlocks';
import { repoDir, siteDir } from './helpers/paths';
import { resolve, type OpenApiDocument, type Operation, type Schema } from '../src/api/openapi';

const GUIDES = 'docs/canopy-core/guides/';
/** The daemon's pages, whose `sh` blocks the daemon's docs test runs (it reads the directory). */
const DAEMON_PAGES = 'docs/canopy-core/tools/canopy-daemon/';
const DAEMON_DOCS_TEST = 'packages/daemon/test/docs-pages.test.ts';

// Hand-written pages only: the generated ones are git-ignored.
const pages = execFileSync('git', ['ls-files', 'docs'], { cwd: siteDir, encoding: 'utf8' })
  .split('\n')
  .filter((file) => /\.mdx?$/.test(file));
const blocks = pages.flatMap((file) => fencedBlocks(file, fs.readFileSync(path.join(siteDir, file), 'utf8')));

/** How a block is executed, or null when nothing accounts for it. */
function accountedFor(block: FencedBlock): string | null {
  if (block.norun !== null) return block.norun.trim().length >= 10 ? 'norun' : null;
  if (/tested-by="/.test(block.meta)) return 'tested-by';
  if (block.lang === 'text') return 'text';
  if (block.lang === 'sh' && block.file.startsWith(GUIDES)) return 'guide';
  if (block.lang === 'sh' && block.file.startsWith(DAEMON_PAGES)) return 'daemon docs test';
  if ((block.lang === 'sh' || block.lang === 'ts') && block.test) return `${block.lang} test`;
  if (block.lang === 'json' && /schema="/.test(block.meta)) return 'schema';
  return null;
}

function loadDocument(name: string): OpenApiDocument {
  const file = path.join(repoDir, 'packages/server/openapi', name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build the site first (npm run build -w @canopy/site)`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** An elided value on a page: `"…"`, `"prn:1:…:release:…"`, `"https://…"`. */
const elided = (value: unknown) => typeof value === 'string' && /…|\.\.\./.test(value);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** What is wrong with `value` as an instance of `schema` (empty when nothing is). */
function problems(doc: OpenApiDocument, raw: Schema, value: unknown, where: string, partial: boolean): string[] {
  const schema = resolve(doc, raw);
  if (schema.allOf) return schema.allOf.flatMap((s) => problems(doc, s, value, where, partial));
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) {
    const results = variants.map((s) => problems(doc, s, value, where, partial));
    return results.some((r) => r.length === 0) ? [] : [`${where}: matches none of its ${variants.length} shapes (${results.map((r) => r[0]).join('; ')})`];
  }
  if (elided(value)) return [];
  const types = schema.type === undefined ? null : [schema.type].flat();
  const actual = typeOf(value);
  if (types && !types.includes(actual) && !(actual === 'integer' && types.includes('number')) && !(actual === 'null' && schema.nullable)) {
    return [`${where}: is ${actual}, the API says ${types.join(' | ')}`];
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return [`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  if (actual === 'array' && schema.items) return (value as unknown[]).flatMap((item, i) => problems(doc, schema.items!, item, `${where}[${i}]`, partial));
  if (actual !== 'object') return [];
  const object = value as Record<string, unknown>;
  const properties = schema.properties ?? {};
  const additional = (schema as { additionalProperties?: boolean | Schema }).additionalProperties;
  const found: string[] = [];
  for (const [key, child] of Object.entries(object)) {
    if (properties[key]) found.push(...problems(doc, properties[key], child, `${where}.${key}`, partial));
    else if (typeof additional === 'object') found.push(...problems(doc, additional, child, `${where}.${key}`, partial));
    else if (schema.properties && additional !== true) found.push(`${where}.${key}: the API has no such field`);
  }
  if (!partial) for (const key of schema.required ?? []) if (!(key in object)) found.push(`${where}.${key}: required, missing`);
  return found;
}

/** The schema a `schema="METHOD /path STATUS|request"` names, narrowed by `at="a.b[]"`. */
function schemaOf(block: FencedBlock, documents: OpenApiDocument[]): { doc: OpenApiDocument; schema: Schema } {
  const [method, route, which] = /schema="([^"]*)"/.exec(block.meta)![1].split(' ');
  const doc = documents.find((d) => d.paths[route]?.[method.toLowerCase()]);
  if (!doc) throw new Error(`${block.file}:${block.line}: no operation ${method} ${route}`);
  const op = doc.paths[route][method.toLowerCase()] as Operation;
  const content = which === 'request' ? op.requestBody?.content : op.responses?.[which]?.content;
  let schema = content?.['application/json']?.schema;
  if (!schema) throw new Error(`${block.file}:${block.line}: ${method} ${route} has no JSON ${which === 'request' ? 'request body' : `answer ${which}`}`);
  for (const step of /at="([^"]*)"/.exec(block.meta)?.[1].split('.') ?? []) {
    const property = resolve(doc, schema).properties?.[step.replace('[]', '')];
    if (!property) throw new Error(`${block.file}:${block.line}: no ${step} in ${method} ${route}`);
    schema = step.endsWith('[]') ? resolve(doc, property).items! : property;
  }
  return { doc, schema };
}

describe('every code block on the site is executed or says why not', () => {
  it('reads the hand-written pages', () => {
    expect(pages.length).toBeGreaterThan(60);
    expect(blocks.length).toBeGreaterThan(100);
  });

  it('accounts for every block', () => {
    const unaccounted = blocks.filter((block) => accountedFor(block) === null).map((b) => `${b.file}:${b.line} (${b.lang || 'no language'})`);
    expect(unaccounted, 'mark each: test, schema="...", tested-by="...", or norun="why" (see the top of this file)').toEqual([]);
  });

  it('has the daemon\'s docs test, reading the daemon\'s pages, for their sh blocks', () => {
    expect(blocks.filter((b) => b.lang === 'sh' && b.file.startsWith(DAEMON_PAGES)).length).toBeGreaterThanOrEqual(6);
    const file = path.join(repoDir, DAEMON_DOCS_TEST);
    expect(fs.existsSync(file), `${DAEMON_DOCS_TEST} is missing`).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toContain(`site/${DAEMON_PAGES.replace(/\/$/, '')}`);
  });

  it('names a test that exists and reads the page, for every tested-by', () => {
    const wrong = blocks.flatMap((block) => {
      const test = /tested-by="([^"]*)"/.exec(block.meta)?.[1];
      if (!test) return [];
      const file = path.join(repoDir, test);
      const reads = fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(path.basename(block.file));
      return reads ? [] : [`${block.file}:${block.line}: ${test} does not exist or does not read the page`];
    });
    expect(wrong).toEqual([]);
  });

  it('matches the API document, for every JSON example', () => {
    const documents = [loadDocument('admin-api.json'), loadDocument('device-api.json')];
    const json = blocks.filter((block) => block.lang === 'json' && /schema="/.test(block.meta));
    expect(json.length).toBeGreaterThanOrEqual(5);
    const found = json.flatMap((block) => {
      const { doc, schema } = schemaOf(block, documents);
      let value: unknown;
      try {
        value = JSON.parse(block.code);
      } catch (error) {
        return [`${block.file}:${block.line}: not JSON (${(error as Error).message})`];
      }
      return problems(doc, schema, value, '$', /(^|\s)partial(\s|$)/.test(block.meta)).map((p) => `${block.file}:${block.line}: ${p}`);
    });
    expect(found).toEqual([]);
  });
});
