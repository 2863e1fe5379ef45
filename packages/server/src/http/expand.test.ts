import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { parseExpand } from './expand';

const ALLOWED = ['cohort', 'manifest', 'release'] as const;

describe('expand', () => {
  it('reads comma-separated, repeated and empty forms', () => {
    expect([...parseExpand('cohort,manifest', ALLOWED)]).toEqual(['cohort', 'manifest']);
    expect([...parseExpand(['cohort', 'release,manifest'], ALLOWED)]).toEqual(['cohort', 'release', 'manifest']);
    expect(parseExpand(undefined, ALLOWED).size).toBe(0);
    expect(parseExpand('', ALLOWED).size).toBe(0);
    expect([...parseExpand(' cohort , cohort ', ALLOWED)]).toEqual(['cohort']);
  });

  it('answers an unknown value with a 400 naming it', () => {
    try {
      parseExpand('cohort,firmware', ALLOWED);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).errors[0]).toEqual({ code: 'parameter', context: { parameter: 'expand', reason: 'unknown_value', value: 'firmware', allowed: [...ALLOWED] } });
    }
  });
});
