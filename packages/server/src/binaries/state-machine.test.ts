import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { BINARY_STATES, type BinaryState } from './schema';
import { clientTransition, type Transition } from './state-machine';

/** The transitions a client may ask for by PATCH, as the table in state-machine.ts says; every other change is a 409. */
const ALLOWED: Record<string, Transition> = {
  'uploadable>hashable': 'finish_upload',
  'hashable>hashing': 'start_hashing',
  'hashable>uploadable': 'reset',
  'hashing>uploadable': 'reset',
  'signable>uploadable': 'reset',
};

function refusal(from: BinaryState, to: BinaryState): ApiError {
  try {
    clientTransition(from, to);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`${from} -> ${to} was allowed`);
}

describe('clientTransition', () => {
  const pairs = BINARY_STATES.flatMap((from) => BINARY_STATES.map((to) => [from, to] as const));

  it.each(pairs.filter(([from, to]) => from === to))('%s -> %s is a no-op', (from, to) => {
    expect(clientTransition(from, to)).toBe('noop');
  });

  it.each(pairs.filter(([from, to]) => from !== 'destroyed' && to === 'destroyed'))('%s -> %s destroys', (from, to) => {
    expect(clientTransition(from, to)).toBe('destroy');
  });

  it.each(Object.entries(ALLOWED).map(([pair, transition]) => [...pair.split('>'), transition] as [BinaryState, BinaryState, Transition]))(
    '%s -> %s is %s',
    (from, to, transition) => {
      expect(clientTransition(from, to)).toBe(transition);
    },
  );

  const refused = pairs.filter(([from, to]) => from !== to && to !== 'destroyed' && !(`${from}>${to}` in ALLOWED));

  it.each(refused.filter(([from]) => from !== 'destroyed'))('%s -> %s is a 409 invalid_state_transition', (from, to) => {
    const error = refusal(from, to);
    expect(error.status).toBe(409);
    expect(error.errors).toEqual([{ code: 'invalid_state_transition', context: { current_state: from, requested_state: to } }]);
  });

  it.each(refused.filter(([from]) => from === 'destroyed'))('%s -> %s is a 409: destroyed is final', (from, to) => {
    const error = refusal(from, to);
    expect(error.status).toBe(409);
    expect(error.errors).toEqual([{ code: 'invalid_state_transition', context: { current_state: from, requested_state: to, reason: 'destroyed_is_final' } }]);
  });

  it('never lets a client move a binary to signable or signed: the server does that', () => {
    for (const from of BINARY_STATES) {
      for (const to of ['signable', 'signed'] as const) {
        if (from !== to) expect(() => clientTransition(from, to)).toThrow(ApiError);
      }
    }
  });

  it('covers every pair of states', () => {
    expect(pairs).toHaveLength(BINARY_STATES.length ** 2);
    expect(refused.length + Object.keys(ALLOWED).length + BINARY_STATES.length + (BINARY_STATES.length - 1)).toBe(pairs.length);
  });
});
