/**
 * fwup's `meta.conf`, the description at the front of every fwup archive: top-level
 * `meta-<name> = "value"` assignments, then `file-resource`, `task` ... blocks in braces, which
 * the legacy API does not need and skips. Values are double-quoted strings with backslash
 * escapes, or bare words (numbers). `#` starts a comment outside quotes. Pure: text in, fields or
 * the first problem out, so every case is unit-tested without an archive (meta-conf.test.ts).
 *
 * The keys the legacy API reads (docs: canopy-core/reference/legacy-api/firmware):
 * meta-product, meta-version, meta-platform, meta-architecture, meta-author, meta-description,
 * meta-vcs-identifier, meta-misc, meta-uuid, meta-fwup-version. meta-uuid, meta-product and
 * meta-version are required; the others are null when absent.
 */

export const META_KEYS = [
  'meta-product',
  'meta-version',
  'meta-platform',
  'meta-architecture',
  'meta-author',
  'meta-description',
  'meta-vcs-identifier',
  'meta-misc',
  'meta-uuid',
  'meta-fwup-version',
] as const;
export type MetaKey = (typeof META_KEYS)[number];
export const REQUIRED_META_KEYS: readonly MetaKey[] = ['meta-uuid', 'meta-product', 'meta-version'];

/** Longest value kept for any field (fwup's own fields are short; this bounds the rows). */
export const MAX_META_VALUE = 1024;

export type MetaFields = Record<MetaKey, string | null>;

export type MetaConfResult =
  | { ok: true; fields: MetaFields }
  | { ok: false; reason: 'syntax' | 'missing_key' | 'value_too_long' | 'invalid_uuid'; key?: string; line?: number };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Token = { kind: 'word' | 'string' | 'punct'; text: string; line: number };

/** Splits the text into words, quoted strings and the punctuation `=`, `{`, `}`, `,`, `(`, `)`. */
function tokenize(text: string): Token[] | { line: number } {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) return { line };
        const d = text[i];
        if (d === '"') break;
        if (d === '\\' && i + 1 < text.length) {
          const e = text[i + 1];
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
          continue;
        }
        if (d === '\n') line++;
        value += d;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', text: value, line });
    } else if ('={},()'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, line });
      i++;
    } else {
      let word = '';
      while (i < text.length && !' \t\r\n"#={},()'.includes(text[i])) word += text[i++];
      tokens.push({ kind: 'word', text: word, line });
    }
  }
  return tokens;
}

export function parseMetaConf(text: string): MetaConfResult {
  const tokens = tokenize(text);
  if (!Array.isArray(tokens)) return { ok: false, reason: 'syntax', line: tokens.line };
  const fields = Object.fromEntries(META_KEYS.map((key) => [key, null])) as MetaFields;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === 'punct' && token.text === '{') depth++;
    else if (token.kind === 'punct' && token.text === '}') {
      if (--depth < 0) return { ok: false, reason: 'syntax', line: token.line };
    } else if (depth === 0 && token.kind === 'word' && tokens[i + 1]?.text === '=' && tokens[i + 1]?.kind === 'punct') {
      const value = tokens[i + 2];
      if (!value || value.kind === 'punct') return { ok: false, reason: 'syntax', line: token.line };
      if ((META_KEYS as readonly string[]).includes(token.text)) {
        if (value.text.length > MAX_META_VALUE) return { ok: false, reason: 'value_too_long', key: token.text, line: token.line };
        fields[token.text as MetaKey] = value.text;
      }
      i += 2;
    }
  }
  if (depth !== 0) return { ok: false, reason: 'syntax', line: tokens.at(-1)?.line };
  for (const key of REQUIRED_META_KEYS) if (!fields[key]) return { ok: false, reason: 'missing_key', key };
  if (!UUID.test(fields['meta-uuid']!)) return { ok: false, reason: 'invalid_uuid', key: 'meta-uuid' };
  fields['meta-uuid'] = fields['meta-uuid']!.toLowerCase();
  return { ok: true, fields };
}

/** The inverse, for tests and tools that build archives: assignments only, values quoted. */
export function formatMetaConf(fields: Partial<Record<MetaKey, string>>): string {
  const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${quote(value!)}\n`)
    .join('');
}
