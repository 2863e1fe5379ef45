/**
 * A field is one flag of a command and where its value goes on the wire. Types say how the
 * text of the flag becomes JSON; bad values are usage errors (exit 2), found before any request.
 */
import fs from 'node:fs';
import { UsageError } from '../errors';

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'json' | 'list' | 'file-base64' | 'number-or-integer' | 'duration';

export interface Field {
  /** Flag name without dashes, kebab-case: `artifact-prn`. */
  flag: string;
  /** Wire name; defaults to the flag in snake_case. */
  key: string;
  type: FieldType;
  description: string;
  required?: boolean;
  choices?: readonly string[];
  /** Shown in the generated example of the command. */
  example?: string;
}

type FieldOptions = Partial<Pick<Field, 'required' | 'choices' | 'example' | 'key'>>;

const snake = (flag: string) => flag.replace(/-/g, '_');

function field(type: FieldType) {
  return (flag: string, description: string, options: FieldOptions = {}): Field => ({ flag, key: options.key ?? snake(flag), type, description, ...options });
}

export const str = field('string');
export const int = field('integer');
export const num = field('number');
export const bool = field('boolean');
export const json = field('json');
export const list = field('list');
export const fileBase64 = field('file-base64');
/** Whole seconds on the wire, written `3600`, `90s`, `30m`, `6h` or `2d`; `null` sends null. */
export const duration = field('duration');

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** The placeholder shown in help: `--limit <integer>`. */
export function valuePlaceholder(f: Field): string {
  switch (f.type) {
    case 'boolean':
      return '<true|false>';
    case 'list':
      return '<a,b,...>';
    case 'json':
      return '<json|@file>';
    case 'file-base64':
      return '<file>';
    case 'duration':
      return '<duration|null>';
    default:
      return f.choices ? `<${f.choices.join('|')}>` : `<${f.type === 'string' ? 'value' : f.type}>`;
  }
}

export function parseField(f: Field, raw: string): unknown {
  const bad = (why: string) => new UsageError(`--${f.flag}: ${why} (got "${raw}")`);
  if (f.choices && !f.choices.includes(raw)) throw bad(`must be one of ${f.choices.join(', ')}`);
  switch (f.type) {
    case 'string':
      return raw;
    case 'integer': {
      if (!/^-?\d+$/.test(raw)) throw bad('must be an integer');
      return Number(raw);
    }
    case 'number':
    case 'number-or-integer': {
      const value = Number(raw);
      if (raw.trim() === '' || Number.isNaN(value)) throw bad('must be a number');
      return value;
    }
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw bad('must be true or false');
    case 'list':
      return raw === '' ? [] : raw.split(',').map((s) => s.trim()).filter(Boolean);
    case 'json': {
      const text = raw.startsWith('@') ? readFile(f, raw.slice(1)).toString('utf8') : raw;
      try {
        return JSON.parse(text);
      } catch {
        throw bad('must be JSON (or @file with JSON)');
      }
    }
    case 'file-base64':
      return readFile(f, raw).toString('base64');
    case 'duration': {
      if (raw === 'null') return null;
      const match = /^(\d+)([smhd]?)$/.exec(raw.trim());
      if (!match) throw bad('must be seconds or a duration such as 90s, 30m, 6h, 2d, or null');
      return Number(match[1]) * UNIT_SECONDS[match[2] || 's'];
    }
  }
}

function readFile(f: Field, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new UsageError(`--${f.flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Turns commander's option values (camelCase keys) into the wire object for these fields. */
export function collectFields(fields: readonly Field[], options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = options[camel(f.flag)];
    if (raw === undefined) continue;
    out[f.key] = parseField(f, String(raw));
  }
  return out;
}

export const camel = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
