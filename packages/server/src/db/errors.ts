/**
 * Reading PostgreSQL's refusals. node-postgres puts the SQLSTATE on the error itself; drizzle
 * (and PGlite) may wrap it in `cause`. Every context and the HTTP error handler read it here.
 */
interface DatabaseErrorFields {
  code?: string;
  constraint?: string;
  cause?: { code?: string; constraint?: string };
}

/** The SQLSTATE of a database error, looking through a few layers of wrapping. */
export function sqlState(error: unknown): string | undefined {
  let e = error as (DatabaseErrorFields & { cause?: unknown }) | null | undefined;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause as typeof e) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** A unique constraint refused the write; with `constraint`, only that constraint counts. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as DatabaseErrorFields | null | undefined;
  const name = e?.constraint ?? e?.cause?.constraint;
  return sqlState(error) === '23505' && (constraint === undefined || name === constraint);
}
