/**
 * Timestamps on the wire are RFC 3339 UTC with microseconds (`2025-06-11T05:04:10.081728Z`).
 * PostgreSQL keeps microseconds and JavaScript's Date does not, so timestamps travel as the
 * database's text form and are only reshaped here, never round-tripped through Date.
 */
const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Database text (any offset) -> `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function toRfc3339(value: string | Date): string;
export function toRfc3339(value: string | Date | null | undefined): string | null;
export function toRfc3339(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  // Fast path for what a UTC session returns: `2025-06-11 05:04:10.081728+00` (hot in lists).
  if (value.length === 29 && value.charCodeAt(10) === 32 && value.endsWith('+00')) return `${value.slice(0, 10)}T${value.slice(11, 26)}Z`;
  const m = PG_TIMESTAMP.exec(value);
  if (!m) throw new Error(`unexpected timestamp from the database: ${value}`);
  const [, date, hh, mm, ss, fraction = '', offset = 'Z'] = m;
  const micros = fraction.padEnd(6, '0');
  if (offset === 'Z' || /^[+-]00(:?00)?$/.test(offset)) return `${date}T${hh}:${mm}:${ss}.${micros}Z`;
  const sign = offset[0] === '-' ? 1 : -1; // subtract the offset to reach UTC
  const [oh, om = '0'] = offset.slice(1).split(':').length > 1 ? offset.slice(1).split(':') : [offset.slice(1, 3), offset.slice(3) || '0'];
  const utc = new Date(`${date}T${hh}:${mm}:${ss}Z`);
  utc.setUTCMinutes(utc.getUTCMinutes() + sign * (Number(oh) * 60 + Number(om)));
  return `${utc.toISOString().slice(0, 19)}.${micros}Z`;
}

/**
 * A request's date-time (RFC 3339 with an offset) checked and handed on as text, so the
 * database compares it with full precision; null when it is not a real date-time.
 */
export function parseDateTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/i.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const probe = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const real = probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
  return real ? value.toUpperCase() : null;
}
