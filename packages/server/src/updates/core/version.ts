/**
 * Versions and version requirements with the semantics of Elixir's `Version` module
 * (release `version` and `version_requirement` follow it:
 * site/docs/canopy-core/reference/bundle-management/releases.md).
 *
 * Written from Elixir's public documentation (hexdocs.pm/elixir/Version.html), checked against its
 * observable behaviour. Where Canopy deliberately differs, the comment at the spot says so:
 * - numbers above 2^53-1 are refused (Elixir has bignums; we want exact comparisons on JS numbers);
 * - a space inside a version operand is an error (Elixir's lexer silently glues `1.0. 0`);
 * - a bare `!` is not an alias of `!=` (undocumented in Elixir; `!=` itself is deprecated there
 *   but kept here because the issue asks for it);
 * - `and` binds tighter than `or` (Elixir documents no precedence and evaluates right-nested).
 */

/** One dot-separated pre-release identifier: numeric identifiers are numbers, others strings. */
export type PreReleaseIdentifier = number | string;

export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Empty for a normal release. */
  pre: PreReleaseIdentifier[];
  /** Build metadata: kept for display, ignored by every comparison. */
  build: string[];
}

export type Ordering = -1 | 0 | 1;

// ---------------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------------

const DIGITS = /^[0-9]+$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

/** A numeric field: digits only, no leading zero (SemVer 2.0 item 2), exact in a JS number. */
function parseNumericField(text: string | undefined): number | null {
  if (text === undefined || !DIGITS.test(text)) return null;
  if (text.length > 1 && text.startsWith('0')) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** `a.b.c` identifiers for pre-release or build: none empty, only `[0-9A-Za-z-]`. */
function parseIdentifiers(text: string | undefined): string[] | null {
  if (text === undefined) return [];
  const parts = text.split('.');
  return parts.every((part) => IDENTIFIER.test(part)) ? parts : null;
}

function parsePreRelease(text: string | undefined): PreReleaseIdentifier[] | null {
  const parts = parseIdentifiers(text);
  if (parts === null) return null;
  const pre: PreReleaseIdentifier[] = [];
  for (const part of parts) {
    if (DIGITS.test(part)) {
      // A numeric identifier must not have a leading zero; `0a` is alphanumeric and fine.
      const value = parseNumericField(part);
      if (value === null) return null;
      pre.push(value);
    } else {
      pre.push(part);
    }
  }
  return pre;
}

/**
 * The shape shared by versions and `~>` operands: `MAJOR.MINOR[.PATCH][-PRE][+BUILD]`.
 * Split like Elixir: the first `+` starts the build, then the first `-` starts the pre-release
 * (so a pre-release may itself contain hyphens: `1.0.0-rc-1`).
 */
function parseVersionShape(text: string, patchOptional: boolean): (Version & { patchGiven: boolean }) | null {
  const plus = text.indexOf('+');
  const withPre = plus === -1 ? text : text.slice(0, plus);
  const buildText = plus === -1 ? undefined : text.slice(plus + 1);
  const dash = withPre.indexOf('-');
  const core = dash === -1 ? withPre : withPre.slice(0, dash);
  const preText = dash === -1 ? undefined : withPre.slice(dash + 1);

  const fields = core.split('.');
  if (fields.length > 3 || fields.length < (patchOptional ? 2 : 3)) return null;
  const major = parseNumericField(fields[0]);
  const minor = parseNumericField(fields[1]);
  const patchGiven = fields.length === 3;
  const patch = patchGiven ? parseNumericField(fields[2]) : 0;
  const pre = parsePreRelease(preText);
  const build = parseIdentifiers(buildText);
  if (major === null || minor === null || patch === null || pre === null || build === null) return null;
  return { major, minor, patch, pre, build, patchGiven };
}

/** `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, exactly as Elixir's `Version.parse/1`; no surrounding spaces. */
export function parseVersion(text: string): Version | null {
  const parsed = parseVersionShape(text, false);
  if (parsed === null) return null;
  const { major, minor, patch, pre, build } = parsed;
  return { major, minor, patch, pre, build };
}

export function isValidVersion(text: string): boolean {
  return parseVersion(text) !== null;
}

/** The canonical text of a version; `parseVersion(formatVersion(v))` gives `v` back. */
export function formatVersion(version: Version): string {
  const pre = version.pre.length > 0 ? `-${version.pre.join('.')}` : '';
  const build = version.build.length > 0 ? `+${version.build.join('.')}` : '';
  return `${version.major}.${version.minor}.${version.patch}${pre}${build}`;
}

function sign(n: number): Ordering {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** SemVer 2.0 item 11: numeric identifiers compare numerically and sort before alphanumeric ones. */
function compareIdentifiers(a: PreReleaseIdentifier, b: PreReleaseIdentifier): Ordering {
  if (typeof a === 'number' && typeof b === 'number') return sign(a - b);
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  // ASCII order, byte by byte (not localeCompare: `B` < `a` here, as in Elixir and SemVer).
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Elixir's `Version.compare/2` as -1/0/1: major, minor, patch numerically; a pre-release is below
 * its release; pre-releases compare identifier by identifier, a longer list wins a tie; build
 * metadata never counts.
 */
export function compareVersions(a: Version, b: Version): Ordering {
  const core = sign(a.major - b.major) || sign(a.minor - b.minor) || sign(a.patch - b.patch);
  if (core !== 0) return core;
  if (a.pre.length === 0 || b.pre.length === 0) return sign(b.pre.length - a.pre.length);
  const shared = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < shared; i++) {
    const order = compareIdentifiers(a.pre[i], b.pre[i]);
    if (order !== 0) return order;
  }
  return sign(a.pre.length - b.pre.length);
}

// ---------------------------------------------------------------------------------------------
// Requirements
// ---------------------------------------------------------------------------------------------

export type ComparisonOperator = '==' | '!=' | '>' | '>=' | '<' | '<=';

/** One `<operator> <version>` clause. A `~>` clause remembers whether its operand had a patch. */
export type RequirementClause =
  | { operator: ComparisonOperator; operand: Version }
  | { operator: '~>'; operand: Version; patchGiven: boolean };

export interface Requirement {
  source: string;
  /** Disjunctive normal form: the requirement holds when every clause of some group holds. */
  anyOf: RequirementClause[][];
}

export interface MatchOptions {
  /**
   * Elixir's `:allow_pre`. When false, a pre-release version fails a `>`, `>=` or `~>` clause
   * whose operand is not itself a pre-release. Defaults to true, as Elixir's `Version.match?/3`
   * documents ("Defaults to `true`"); Hex sets it to false for dependency resolution.
   */
  allowPre?: boolean;
}

const OPERATORS = ['>=', '<=', '~>', '==', '!=', '>', '<'] as const;
type Operator = (typeof OPERATORS)[number];
type Token = { kind: 'operator'; operator: Operator } | { kind: 'and' | 'or' } | { kind: 'operand'; text: string };

/** Characters that start an operator, so `>=1.0.0` splits without a space (as in Elixir). */
const OPERATOR_START = new Set(['>', '<', '~', '=', '!']);

/**
 * Splits on spaces and operators. `and`/`or` are connectives only as whole words followed by a
 * space (Elixir looks for ` and ` / ` or `). Only the space character separates tokens: a tab
 * stays inside a token and makes it invalid, again as in Elixir.
 */
function tokenize(source: string): Token[] | null {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    if (source[i] === ' ') {
      i++;
      continue;
    }
    const operator = OPERATORS.find((op) => source.startsWith(op, i));
    if (operator !== undefined) {
      tokens.push({ kind: 'operator', operator });
      i += operator.length;
      continue;
    }
    let end = i;
    while (end < source.length && source[end] !== ' ' && !OPERATOR_START.has(source[end])) end++;
    if (end === i) return null; // a lone `=`, `!` or `~`
    const word = source.slice(i, end);
    const connective = (word === 'and' || word === 'or') && source[end] === ' ';
    tokens.push(connective ? { kind: word } : { kind: 'operand', text: word });
    i = end;
  }
  return tokens;
}

function parseClause(operator: Operator, text: string): RequirementClause | null {
  if (operator === '~>') {
    // `~>` alone may omit the patch: `~> 2.1` (but never the minor: `~> 2` is invalid).
    const shape = parseVersionShape(text, true);
    if (shape === null) return null;
    const { patchGiven, ...operand } = shape;
    return { operator, operand, patchGiven };
  }
  const operand = parseVersion(text);
  return operand === null ? null : { operator, operand };
}

/**
 * `clause (("and" | "or") clause)*`, clause = `[operator] version` (a bare version means `==`).
 * `and` binds tighter than `or`, so the result is a list of `and` groups joined by `or`.
 */
export function parseRequirement(source: string): Requirement | null {
  const tokens = tokenize(source);
  if (tokens === null || tokens.length === 0) return null;
  const anyOf: RequirementClause[][] = [[]];
  let i = 0;
  for (;;) {
    let operator: Operator = '==';
    const first = tokens[i];
    if (first?.kind === 'operator') {
      operator = first.operator;
      i++;
    }
    const operand = tokens[i];
    if (operand?.kind !== 'operand') return null;
    const clause = parseClause(operator, operand.text);
    if (clause === null) return null;
    anyOf[anyOf.length - 1].push(clause);
    i++;
    if (i === tokens.length) return { source, anyOf };
    const connective = tokens[i];
    if (connective.kind === 'or') anyOf.push([]);
    else if (connective.kind !== 'and') return null;
    i++;
  }
}

export function isValidRequirement(source: string): boolean {
  return parseRequirement(source) !== null;
}

/** The exclusive upper bound of `~>`: the next minor (three parts) or next major (two parts). */
function approximateUpperBound(operand: Version, patchGiven: boolean): Version {
  // Pre-release `0` is the lowest version with that core, so `~> 2.0` also refuses `3.0.0-dev`:
  // "`~>` will never include pre-release versions of its upper bound" (Elixir docs).
  return patchGiven
    ? { major: operand.major, minor: operand.minor + 1, patch: 0, pre: [0], build: [] }
    : { major: operand.major + 1, minor: 0, patch: 0, pre: [0], build: [] };
}

function clauseMatches(version: Version, clause: RequirementClause, allowPre: boolean): boolean {
  const order = compareVersions(version, clause.operand);
  // The pre-release rule applies to the lower-bound operators only, as in Elixir: `< 2.0.0`
  // still accepts `1.5.0-dev` with allow_pre false.
  const preAllowed = allowPre || version.pre.length === 0 || clause.operand.pre.length > 0;
  switch (clause.operator) {
    case '==':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0 && preAllowed;
    case '>=':
      return order >= 0 && preAllowed;
    case '~>':
      return (
        order >= 0 &&
        compareVersions(version, approximateUpperBound(clause.operand, clause.patchGiven)) < 0 &&
        preAllowed
      );
  }
}

/** Elixir's `Version.match?/3` on parsed values. */
export function matchesRequirement(version: Version, requirement: Requirement, options: MatchOptions = {}): boolean {
  const allowPre = options.allowPre ?? true;
  return requirement.anyOf.some((group) => group.every((clause) => clauseMatches(version, clause, allowPre)));
}

/** Convenience for stored strings: false when either side does not parse (never throws). */
export function versionMatches(version: string, requirement: string, options: MatchOptions = {}): boolean {
  const parsedVersion = parseVersion(version);
  const parsedRequirement = parseRequirement(requirement);
  if (parsedVersion === null || parsedRequirement === null) return false;
  return matchesRequirement(parsedVersion, parsedRequirement, options);
}
