import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPrn, parsePrn, PRN_TYPES, resourceIdFromPrn, type Prn, type PrnType } from './prn';

const uuid = fc.uuid().map((u) => u.toLowerCase());
const prnArbitrary: fc.Arbitrary<Prn> = fc.oneof(
  fc.record({ kind: fc.constant('organization' as const), organizationId: uuid }),
  fc.record({ kind: fc.constant('user' as const), id: uuid }),
  fc.record({ kind: fc.constant('resource' as const), organizationId: uuid, type: fc.constantFrom(...PRN_TYPES), id: uuid }),
);

describe('prn', () => {
  it('parses what it formats', () => {
    fc.assert(fc.property(prnArbitrary, (prn) => {
      expect(parsePrn(formatPrn(prn))).toEqual(prn);
    }));
  });

  it('never throws, whatever the input', () => {
    fc.assert(fc.property(fc.anything(), (value) => {
      const parsed = parsePrn(value);
      expect(parsed === null || typeof parsed === 'object').toBe(true);
    }));
  });

  it.each([
    ['prn:2:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70', 'wrong version'],
    ['prn:1:not-a-uuid', 'bad organization id'],
    ['prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:gadget:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69', 'unknown type'],
    ['prn:1:9A3B1F5E-7C1D-4E0A-9A4B-2F3C4D5E6F70', 'upper-case uuid'],
    ['prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:device', 'missing id'],
    ['prn:1:user:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:x', 'trailing segment'],
  ])('rejects %s (%s)', (value) => {
    expect(parsePrn(value)).toBeNull();
  });

  it('finds the same resource id as parsePrn, for prns and near misses alike', () => {
    const byParsing = (value: unknown, type: PrnType, organizationId: string) => {
      const prn = parsePrn(value);
      return prn && prn.kind === 'resource' && prn.type === type && prn.organizationId === organizationId ? prn.id : null;
    };
    const organization = fc.oneof(uuid, fc.uuid().map((u) => u.toUpperCase()), fc.constantFrom('', 'x', 'a:b', 'user'));
    const type = fc.constantFrom(...PRN_TYPES);
    // Well-formed prns of the caller's or another organization and type; the caller's, edited (a
    // character replaced, or characters dropped or added, anywhere); strings that are no prn at all.
    const candidate = (org: string, expected: PrnType) => {
      const own = fc.uuid().map((id) => formatPrn({ kind: 'resource', organizationId: org, type: expected, id: id.toLowerCase() }));
      return fc.oneof(
        fc.record({ kind: fc.constant('resource' as const), organizationId: fc.oneof(fc.constant(org), uuid), type: fc.oneof(fc.constant(expected), type), id: uuid }).map(formatPrn),
        fc.tuple(own, fc.nat(), fc.constantFrom(':', '-', 'a', 'A', '0', 'x')).map(([prn, at, c]) => prn.slice(0, at % prn.length) + c + prn.slice((at % prn.length) + 1)),
        fc.tuple(own, fc.nat(), fc.string({ maxLength: 2 }), fc.nat({ max: 2 })).map(
          ([prn, at, insert, remove]) => prn.slice(0, at % (prn.length + 1)) + insert + prn.slice((at % (prn.length + 1)) + remove),
        ),
        prnArbitrary.map(formatPrn),
        fc.anything(),
      );
    };
    fc.assert(
      fc.property(
        organization.chain((org) => type.chain((expected) => candidate(org, expected).map((value) => ({ value, org, expected })))),
        ({ value, org, expected }) => {
          expect(resourceIdFromPrn(value, expected, org)).toBe(byParsing(value, expected, org));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers the id only for the expected type and organization', () => {
    const org = '9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70';
    const id = '0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69';
    expect(resourceIdFromPrn(`prn:1:${org}:device:${id}`, 'device', org)).toBe(id);
    expect(resourceIdFromPrn(`prn:1:${org}:cohort:${id}`, 'device', org)).toBeNull();
    expect(resourceIdFromPrn(`prn:1:${id}:device:${id}`, 'device', org)).toBeNull();
  });
});
