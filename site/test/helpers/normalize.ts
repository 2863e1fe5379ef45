/**
 * Makes a recorded session repeatable: what differs from run to run (ids, times, keys, ports,
 * temporary paths) is replaced with stable stand-ins of the same shape, so that the recording
 * compares equal between runs unless the CLI or the API really changed.
 *
 * One normalizer serves a whole session: the same id gets the same stand-in everywhere, so a prn
 * printed by one example is the one the next example's answer refers to.
 */
import { createHash } from 'node:crypto';

/** Fields whose values are fresh secrets, keys or digests in every run. */
const OPAQUE_FIELDS = new Set([
  'value',
  'signature',
  'secret',
  'previous_secret',
  'key',
  'fingerprint',
  'verification_code',
  'certificate',
  'verification_certificate',
  'serial',
  'serial_number',
  'public_key',
  'subject_key_identifier',
  'authority_key_identifier',
  'aki',
  'keyid',
  'public_value',
  'ski',
]);

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const TIMESTAMP = /\b(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)\b/g;
const BASE_TIME = Date.parse('2025-06-11T05:04:00Z');
// Times are shown relative to the session's start, rounded to this step: a ttl of 900 s shows
// as +15 min whatever the machine's speed (a session takes well under half a step).
const STEP_MS = 15 * 60_000;

export class Normalizer {
  private ids = new Map<string, string>();
  private opaque = new Map<string, string>();
  private readonly start = Date.now();

  private readonly kept: Set<number>;

  /**
   * `replacements`: literal strings (origins, temporary paths) and what to show instead.
   * `keptTimes`: times the session's commands give (schedule dates...), shown as they are.
   */
  constructor(
    private readonly replacements: [string, string][],
    keptTimes: string[] = [],
  ) {
    this.kept = new Set(keptTimes.map((t) => Date.parse(t)));
  }

  private stableId(uuid: string): string {
    if (!this.ids.has(uuid)) {
      const h = createHash('sha256').update(`canopy-example-id-${this.ids.size}`).digest('hex');
      this.ids.set(uuid, `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`);
    }
    return this.ids.get(uuid)!;
  }

  /**
   * A stand-in with the same length and alphabet (hex, upper-case base32, base64...), chosen by
   * order of appearance only, never by content: the content is random in every run. PEM armour
   * lines, line breaks and `=` padding are kept.
   */
  private stableOpaque(text: string, original = text): string {
    if (!this.opaque.has(original)) {
      const seed = createHash('sha256').update(`canopy-example-opaque-${this.opaque.size}`).digest();
      this.opaque.set(original, scramble(text, seed));
    }
    return this.opaque.get(original)!;
  }

  /**
   * A signed URL's query value (expiry, signature): its stand-in depends on the URL's path and the
   * parameter's name only, and takes no place in the order of appearance. Two URLs signed within
   * the same second are equal and a second apart are not, so ordering them with the other opaque
   * values would make the recording depend on the clock.
   */
  private signedUrlValue(path: string, name: string, value: string): string {
    return scramble(value, createHash('sha256').update(`canopy-example-url-${path}-${name}`).digest());
  }

  private time(match: string, whole: string, fraction: string | undefined, zone: string): string {
    const t = Date.parse(match);
    // Only the times this run made (now, now + ttl, a certificate's end); dates given in the commands stay.
    if (Number.isNaN(t) || this.kept.has(t)) return match;
    const shifted = new Date(BASE_TIME + Math.round((t - this.start) / STEP_MS) * STEP_MS).toISOString();
    const digits = fraction ? fraction.length - 1 : 0;
    return `${shifted.slice(0, 19)}${digits ? `.${'0'.repeat(digits)}` : ''}${zone === 'Z' ? 'Z' : zone}`;
  }

  text(input: string): string {
    let out = input;
    for (const [from, to] of this.replacements) out = out.split(from).join(to);
    // An opaque value seen before may be quoted inside other text (a code in a subject's CN).
    for (const [from, to] of this.opaque) if (from.length >= 16) out = out.split(from).join(to);
    out = out.replace(UUID, (u) => this.stableId(u));
    out = out.replace(TIMESTAMP, (m, whole, fraction, zone) => this.time(m, whole, fraction, zone));
    // API keys and session tokens keep their kind's prefix (cnpy_ current, cnpyl_ legacy).
    out = out.replace(/\b(cnpyl?_)([A-Za-z0-9_-]+)/g, (_, prefix: string, rest: string) => prefix + this.stableOpaque(rest));
    // Signed URLs: the query carries an expiry and a signature.
    out = out.replace(/([^\s"?]*)\?([^\s"]+)/g, (_, path: string, query: string) =>
      `${path}?${query.replace(/(^|&)(signature|sig|token|expires|X-Amz-[A-Za-z-]+)=([^&]+)/g, (_m, sep: string, name: string, v: string) => `${sep}${name}=${this.signedUrlValue(path, name, v)}`)}`,
    );
    return out;
  }

  /** A JSON value: opaque fields scrambled, then the text rules on every string. */
  json(value: unknown, key = ''): unknown {
    if (Array.isArray(value)) return value.map((v) => this.json(v, key));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.json(v, k)]));
    }
    if (typeof value === 'string') {
      // A random serial's leading zeros are dropped, so its length varies too: show 32 digits.
      // Certificates vary in length with their signatures: show the start of one, cut.
      if (key === 'certificate' || key === 'verification_certificate') return `${this.stableOpaque(value.slice(0, 64), value)}...`;
      if (key === 'serial' || key === 'serial_number') return this.stableOpaque(value.padStart(32, '0').slice(-32), value);
      // A URL under `value` (a CLI profile setting) is no secret: the text rules apply to it.
      if (OPAQUE_FIELDS.has(key) && !/^[0-9a-f-]{36}$/.test(value) && !value.startsWith('prn:') && !/^https?:\/\//.test(value)) return this.stableOpaque(value);
      return this.text(value);
    }
    return value;
  }

  /** Output that may be JSON: normalized and pretty-printed if it is, text rules otherwise. */
  output(stdout: string): string {
    const trimmed = stdout.trim();
    if (!trimmed) return '';
    try {
      return JSON.stringify(this.json(JSON.parse(trimmed)), null, 2);
    } catch {
      return this.text(trimmed);
    }
  }
}

/**
 * A stand-in for `text` with the same length and alphabet (hex, upper-case base32, base64...),
 * drawn from `seed`, never from the content: the content is random in every run. PEM armour
 * lines, line breaks and `=` padding are kept.
 */
function scramble(text: string, seed: Buffer): string {
  const alphabet = /^[0-9a-f]+$/.test(text)
    ? '0123456789abcdef'
    : /^[0-9A-F]+$/.test(text)
      ? '0123456789ABCDEF'
      : /^[0-9A-Z]+$/.test(text)
        ? '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
        : // base64 and base64url alike: letters and digits only, valid in both
          'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let n = 0;
  return text.replace(/-----[A-Z ]+-----|[\n=]|./g, (c) => {
    if (c.length > 1 || c === '\n' || c === '=') return c;
    n++;
    return alphabet[(seed[n % seed.length] + n * 7) % alphabet.length];
  });
}
