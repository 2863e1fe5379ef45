import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  compareVersions,
  formatVersion,
  isValidRequirement,
  isValidVersion,
  matchesRequirement,
  parseRequirement,
  parseVersion,
  versionMatches,
  type Version,
} from './version';

function v(text: string): Version {
  const parsed = parseVersion(text);
  if (parsed === null) throw new Error(`test fixture is not a version: ${text}`);
  return parsed;
}

describe('parseVersion', () => {
  it.each([
    ['1.2.3', { major: 1, minor: 2, patch: 3, pre: [], build: [] }],
    ['0.0.0', { major: 0, minor: 0, patch: 0, pre: [], build: [] }],
    ['2.0.1-alpha1', { major: 2, minor: 0, patch: 1, pre: ['alpha1'], build: [] }],
    ['1.0.0-alpha.3', { major: 1, minor: 0, patch: 0, pre: ['alpha', 3], build: [] }],
    ['1.0.0-alpha.3+20130417140000.amd64', { major: 1, minor: 0, patch: 0, pre: ['alpha', 3], build: ['20130417140000', 'amd64'] }],
    ['1.0.0+build', { major: 1, minor: 0, patch: 0, pre: [], build: ['build'] }],
    ['1.0.0-rc-1', { major: 1, minor: 0, patch: 0, pre: ['rc-1'], build: [] }],
    ['1.0.0-0a', { major: 1, minor: 0, patch: 0, pre: ['0a'], build: [] }],
    ['1.0.0-0', { major: 1, minor: 0, patch: 0, pre: [0], build: [] }],
    ['1.0.0-x-y.--', { major: 1, minor: 0, patch: 0, pre: ['x-y', '--'], build: [] }],
    ['1.0.0+001', { major: 1, minor: 0, patch: 0, pre: [], build: ['001'] }],
    ['10.20.30', { major: 10, minor: 20, patch: 30, pre: [], build: [] }],
  ])('parses %s', (text, expected) => {
    expect(parseVersion(text)).toEqual(expected);
    expect(isValidVersion(text)).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['1.2', 'two parts (Elixir: "2.0-alpha1" is :error)'],
    ['2.0-alpha1', 'Elixir doc example'],
    ['1', 'one part'],
    ['1.2.3.4', 'four parts'],
    ['01.0.0', 'leading zero in major'],
    ['1.02.0', 'leading zero in minor'],
    ['1.0.00', 'leading zero in patch'],
    ['1.0.0-01', 'leading zero in a numeric pre-release identifier'],
    ['1.0.0-', 'empty pre-release'],
    ['1.0.0+', 'empty build'],
    ['1.0.0-alpha..1', 'empty pre-release identifier'],
    ['1.0.0+a..b', 'empty build identifier'],
    ['1.0.0-alpha_1', 'underscore'],
    ['1.0.0+a+b', 'second plus'],
    [' 1.0.0', 'leading space'],
    ['1.0.0 ', 'trailing space'],
    ['v1.0.0', 'v prefix'],
    ['1.0.x', 'wildcard'],
    ['-1.0.0', 'negative'],
    ['1.0.0-é', 'non-ASCII'],
    ['9007199254740992.0.0', 'beyond 2^53-1 (Canopy refuses, to keep comparisons exact)'],
  ])('refuses %j (%s)', (text) => {
    expect(parseVersion(text)).toBeNull();
    expect(isValidVersion(text)).toBe(false);
  });
});

describe('compareVersions', () => {
  it.each([
    // Elixir's documented examples.
    ['2.0.1-alpha1', '2.0.0', 1],
    ['1.0.0-beta', '1.0.0-rc1', -1],
    ['1.0.0-10', '1.0.0-2', 1],
    ['2.0.1+build0', '2.0.1', 0],
    // Core fields numerically.
    ['1.10.0', '1.9.0', 1],
    ['2.0.0', '10.0.0', -1],
    ['1.0.1', '1.0.0', 1],
    // Pre-release below its release, build ignored everywhere.
    ['1.0.0-rc.1', '1.0.0', -1],
    ['1.0.0-rc.1+a', '1.0.0-rc.1+b', 0],
    // Numeric identifiers below alphanumeric ones; ASCII order for strings.
    ['1.0.0-1', '1.0.0-a', -1],
    ['1.0.0-B', '1.0.0-a', -1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
  ] as const)('compare(%s, %s) = %d', (a, b, expected) => {
    expect(compareVersions(v(a), v(b))).toBe(expected);
    expect(compareVersions(v(b), v(a))).toBe(-expected || 0);
  });

  it('orders the SemVer 2.0 precedence example', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '2.0.0',
      '2.1.0',
      '2.1.1',
    ];
    const shuffled = [...ordered].reverse().map(v);
    expect(shuffled.sort(compareVersions).map(formatVersion)).toEqual(ordered);
  });
});

describe('parseRequirement', () => {
  it.each([
    '== 2.0.1',
    '2.0.1',
    '> 2.0.0',
    '>= 2.0.0 and < 2.1.0',
    '~> 2.0.0',
    '~> 2.0',
    '~> 2.1-dev',
    '~> 2.1.3-dev',
    '!= 1.0.0',
    '1.0.0 or 2.0.0',
    '>=1.0.0',
    '~>1.2',
    '  >=   1.0.0   and   <   2.0.0  ',
    '>= 1.0.0 and < 2.0.0 or == 3.0.0',
    '== 1.0.0+build',
    '>= 1.0.0-rc.1',
  ])('accepts %j', (source) => {
    expect(isValidRequirement(source)).toBe(true);
    expect(parseRequirement(source)?.source).toBe(source);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'only spaces'],
    ['== == 2.0.1', 'Elixir doc example: two operators'],
    ['~> 1', '~> needs at least MAJOR.MINOR'],
    ['>= 1.0', 'only ~> may omit the patch'],
    ['== 1.2', 'only ~> may omit the patch'],
    ['1.2', 'a bare version is == and needs three parts'],
    ['>= 1.0.0 and', 'trailing connective'],
    ['or 1.0.0', 'leading connective'],
    ['>= 1.0.0 and and < 2.0.0', 'two connectives'],
    ['>= 1.0.0 < 2.0.0', 'missing connective'],
    ['1.0.0 1.1.0', 'two bare versions'],
    ['>= 1.0.0and < 2.0.0', 'connective needs spaces'],
    ['>= 1.0.0 and< 2.0.0', 'connective needs spaces'],
    ['>= 1.0.0 AND < 2.0.0', 'connectives are lower case'],
    ['>= 1.0.0 && < 2.0.0', 'no && alias'],
    ['>=\t1.0.0', 'tab is not a separator'],
    ['>= 1.0. 0', 'space inside a version'],
    ['=> 1.0.0', 'not an operator'],
    ['= 1.0.0', 'single ='],
    ['! 1.0.0', 'bare ! is not supported'],
    ['~ 1.0.0', 'bare ~'],
    ['>= 01.0.0', 'leading zero'],
    ['>=', 'operator without operand'],
  ])('refuses %j (%s)', (source) => {
    expect(parseRequirement(source)).toBeNull();
    expect(isValidRequirement(source)).toBe(false);
  });
});

describe('matchesRequirement', () => {
  // Elixir's documented table ("Requirements" section and Version.match?/3 examples).
  it.each([
    ['~> 2.0', '2.1.0', undefined, true],
    ['~> 2.0', '3.0.0', undefined, false],
    ['~> 2.0.0', '2.0.5', undefined, true],
    ['~> 2.0.0', '2.0.1', undefined, true],
    ['~> 2.0.0', '2.1.0', undefined, false],
    ['~> 2.1.2', '2.1.6-dev', true, true],
    ['~> 2.1.2', '2.1.6-dev', false, false],
    ['~> 2.1.2', '2.1.6-dev', undefined, true],
    ['~> 2.1-dev', '2.2.0-dev', true, true],
    ['~> 2.1-dev', '2.2.0-dev', false, true],
    ['~> 2.1.2-dev', '2.1.6-dev', true, true],
    ['~> 2.1.2-dev', '2.1.6-dev', false, true],
    ['>= 2.1.0', '2.2.0-dev', true, true],
    ['>= 2.1.0', '2.2.0-dev', false, false],
    ['>= 2.1.0-dev', '2.2.6-dev', true, true],
    ['>= 2.1.0-dev', '2.2.6-dev', false, true],
    ['> 1.0.0', '2.0.0', undefined, true],
    ['== 1.0.0', '2.0.0', undefined, false],
    // The brief's examples: both false/true regardless of allow_pre.
    ['~> 2.0', '2.0.0-dev', undefined, false],
    ['~> 2.0', '2.0.0-dev', false, false],
    ['>= 2.0.0-alpha', '2.0.0-dev', undefined, true],
    ['>= 2.0.0-alpha', '2.0.0-dev', false, true],
  ] as const)('%s matches %s (allow_pre %s): %s', (requirement, version, allowPre, expected) => {
    const options = allowPre === undefined ? {} : { allowPre };
    expect(versionMatches(version, requirement, options)).toBe(expected);
  });

  it.each([
    // ~> translations from the docs: the lower bound is inclusive, the upper exclusive.
    ['~> 2.0.0', '2.0.0', true],
    ['~> 2.0.0', '2.0.99', true],
    ['~> 2.1.2', '2.1.1', false],
    ['~> 2.1.2', '2.1.2', true],
    ['~> 2.1.2', '2.2.0', false],
    ['~> 2.1.3-dev', '2.1.3-dev', true],
    ['~> 2.1.3-dev', '2.1.3-alpha', false],
    ['~> 2.1.3-dev', '2.1.3', true],
    ['~> 2.0', '2.0.0', true],
    ['~> 2.0', '2.99.99', true],
    ['~> 2.1', '2.0.9', false],
    ['~> 2.1', '3.0.0', false],
    // The upper bound never admits its own pre-releases.
    ['~> 2.0', '3.0.0-dev', false],
    ['~> 2.0', '3.0.0-0', false],
    ['~> 2.0.0', '2.1.0-rc.1', false],
    // Plain comparisons.
    ['2.0.0', '2.0.0', true],
    ['2.0.0', '2.0.0+build', true],
    ['== 2.0.0+a', '2.0.0+b', true],
    ['!= 2.0.0', '2.0.0', false],
    ['!= 2.0.0', '2.0.1', true],
    ['> 2.0.0', '2.0.0', false],
    ['>= 2.0.0', '2.0.0', true],
    ['< 2.0.0', '2.0.0', false],
    ['< 2.0.0', '2.0.0-rc.1', true],
    ['<= 2.0.0', '2.0.0', true],
    ['<= 2.0.0', '2.0.1', false],
    ['>= 1.0.0 and < 2.0.0', '1.5.0', true],
    ['>= 1.0.0 and < 2.0.0', '2.0.0', false],
    ['1.0.0 or 2.0.0', '2.0.0', true],
    ['1.0.0 or 2.0.0', '1.5.0', false],
    // `and` binds tighter than `or`.
    ['== 3.0.0 or >= 1.0.0 and < 2.0.0', '3.0.0', true],
    ['>= 1.0.0 and < 2.0.0 or == 3.0.0', '3.0.0', true],
    ['>= 1.0.0 and < 2.0.0 or == 3.0.0', '0.5.0', false],
    ['>= 1.0.0 and < 2.0.0 or == 3.0.0', '1.2.0', true],
  ] as const)('%s matches %s: %s', (requirement, version, expected) => {
    expect(versionMatches(version, requirement)).toBe(expected);
  });

  it('applies the pre-release rule to lower bounds only, like Elixir', () => {
    const options = { allowPre: false };
    expect(versionMatches('1.5.0-dev', '< 2.0.0', options)).toBe(true);
    expect(versionMatches('1.5.0-dev', '<= 2.0.0', options)).toBe(true);
    expect(versionMatches('1.5.0-dev', '!= 2.0.0', options)).toBe(true);
    expect(versionMatches('1.5.0-dev', '> 1.0.0', options)).toBe(false);
    expect(versionMatches('1.5.0-dev', '> 1.0.0-a', options)).toBe(true);
    expect(versionMatches('1.5.0-dev', '>= 1.0.0-dev and < 2.0.0', options)).toBe(true);
  });

  it('never throws on bad input', () => {
    expect(versionMatches('nope', '>= 1.0.0')).toBe(false);
    expect(versionMatches('1.0.0', 'nope')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const numericField = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.nat({ max: Number.MAX_SAFE_INTEGER }));
const alphanumericIdentifier = fc
  .stringMatching(/^[0-9A-Za-z-]{1,8}$/)
  .filter((s) => !/^[0-9]+$/.test(s));
const preIdentifier = fc.oneof(fc.integer({ min: 0, max: 20 }), alphanumericIdentifier, fc.constantFrom('alpha', 'beta', 'rc', 'dev'));
const buildIdentifier = fc.stringMatching(/^[0-9A-Za-z-]{1,8}$/);

const versionArbitrary: fc.Arbitrary<Version> = fc.record({
  major: numericField,
  minor: numericField,
  patch: numericField,
  pre: fc.array(preIdentifier, { maxLength: 3 }),
  build: fc.array(buildIdentifier, { maxLength: 2 }),
});
// Small fields make equal cores (and so pre-release comparisons) frequent.
const smallVersion: fc.Arbitrary<Version> = fc.record({
  major: fc.integer({ min: 0, max: 2 }),
  minor: fc.integer({ min: 0, max: 2 }),
  patch: fc.integer({ min: 0, max: 2 }),
  pre: fc.array(fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', 'b', 'B', 'rc')), { maxLength: 2 }),
  build: fc.array(fc.constantFrom('x', 'y'), { maxLength: 1 }),
});
const anyVersion = fc.oneof(versionArbitrary, smallVersion);

describe('version properties', () => {
  it('parse(format(v)) gives v back', () => {
    fc.assert(
      fc.property(anyVersion, (version) => {
        expect(parseVersion(formatVersion(version))).toEqual(version);
      }),
    );
  });

  it('compare is reflexive and antisymmetric', () => {
    fc.assert(
      fc.property(anyVersion, anyVersion, (a, b) => {
        expect(compareVersions(a, a)).toBe(0);
        expect(compareVersions(a, b)).toBe(-compareVersions(b, a) || 0);
      }),
    );
  });

  it('compare is transitive', () => {
    fc.assert(
      fc.property(smallVersion, smallVersion, smallVersion, (a, b, c) => {
        const [x, y, z] = [a, b, c].sort(compareVersions);
        expect(compareVersions(x, y)).toBeLessThanOrEqual(0);
        expect(compareVersions(y, z)).toBeLessThanOrEqual(0);
        expect(compareVersions(x, z)).toBeLessThanOrEqual(0);
        if (compareVersions(x, y) === 0 && compareVersions(y, z) === 0) expect(compareVersions(x, z)).toBe(0);
      }),
    );
  });

  it('build metadata never changes the order', () => {
    fc.assert(
      fc.property(anyVersion, fc.array(buildIdentifier, { maxLength: 2 }), (a, build) => {
        expect(compareVersions(a, { ...a, build })).toBe(0);
      }),
    );
  });

  it('comparison operators agree with compareVersions', () => {
    fc.assert(
      fc.property(smallVersion, smallVersion, (version, operand) => {
        const text = formatVersion(operand);
        const order = compareVersions(version, operand);
        const check = (op: string) => matchesRequirement(version, parseRequirement(`${op} ${text}`)!);
        expect(check('==')).toBe(order === 0);
        expect(check('!=')).toBe(order !== 0);
        expect(check('<')).toBe(order < 0);
        expect(check('<=')).toBe(order <= 0);
        expect(check('>')).toBe(order > 0);
        expect(check('>=')).toBe(order >= 0);
      }),
    );
  });

  it('allow_pre false only ever narrows a match', () => {
    const requirementText = fc
      .tuple(fc.constantFrom('==', '!=', '<', '<=', '>', '>=', '~>'), smallVersion)
      .map(([op, operand]) => `${op} ${formatVersion(operand)}`);
    fc.assert(
      fc.property(smallVersion, fc.array(requirementText, { minLength: 1, maxLength: 3 }), fc.boolean(), (version, clauses, useOr) => {
        const requirement = parseRequirement(clauses.join(useOr ? ' or ' : ' and '))!;
        expect(requirement).not.toBeNull();
        if (matchesRequirement(version, requirement, { allowPre: false })) {
          expect(matchesRequirement(version, requirement, { allowPre: true })).toBe(true);
        }
        if (version.pre.length === 0) {
          expect(matchesRequirement(version, requirement, { allowPre: false })).toBe(
            matchesRequirement(version, requirement, { allowPre: true }),
          );
        }
      }),
    );
  });
});
