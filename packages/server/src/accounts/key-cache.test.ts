import { describe, expect, it } from 'vitest';
import type { Actor } from '../http/actor';
import { cachedActor, distrustCachedKeys, forgetCachedKeys, KEY_CACHE_TTL_MS, lookupOnce, rememberActor } from './key-cache';

const actor: Actor = { organizationId: 'o', role: 'read', keyKind: 'current', keyId: 'k', userId: null, prn: 'p' };

describe('authenticated key cache', () => {
  it('remembers a key for a short time only', () => {
    const db = {} as never;
    rememberActor(db, 'hash', actor, null, 1_000);
    expect(cachedActor(db, 'hash', 1_000 + KEY_CACHE_TTL_MS - 1)).toBe(actor);
    expect(cachedActor(db, 'hash', 1_000 + KEY_CACHE_TTL_MS)).toBeNull();
  });

  it('never outlives the key\'s own expiry', () => {
    const db = {} as never;
    rememberActor(db, 'hash', actor, 1_500, 1_000);
    expect(cachedActor(db, 'hash', 1_499)).toBe(actor);
    expect(cachedActor(db, 'hash', 1_500)).toBeNull();
  });

  it('forgets everything on revocation and keeps databases apart', () => {
    const a = {} as never;
    const b = {} as never;
    rememberActor(a, 'hash', actor, null);
    rememberActor(b, 'hash', actor, null);
    forgetCachedKeys(a);
    expect(cachedActor(a, 'hash')).toBeNull();
    expect(cachedActor(b, 'hash')).toBe(actor);
  });

  it('answers nothing from, and keeps nothing in, the cache of a handle that may miss revocations', () => {
    const db = {} as never;
    rememberActor(db, 'hash', actor, null);
    distrustCachedKeys(db, true);
    expect(cachedActor(db, 'hash')).toBeNull();
    rememberActor(db, 'hash', actor, null);
    expect(cachedActor(db, 'hash')).toBeNull();
    distrustCachedKeys(db, false);
    expect(cachedActor(db, 'hash')).toBeNull(); // nothing kept from the distrusted time
    rememberActor(db, 'hash', actor, null);
    expect(cachedActor(db, 'hash')).toBe(actor);
  });

  it('runs one lookup per key at a time, and a new one after it answers or after a revocation', async () => {
    const db = {} as never;
    const answers: ((value: Actor | null) => void)[] = [];
    const lookup = () => new Promise<Actor | null>((resolve) => answers.push(resolve));
    const first = lookupOnce(db, 'hash', lookup);
    const second = lookupOnce(db, 'hash', lookup);
    const otherKey = lookupOnce(db, 'other', lookup);
    expect(answers).toHaveLength(2);
    answers[0](actor);
    answers[1](null);
    expect(await first).toBe(actor);
    expect(await second).toBe(actor);
    expect(await otherKey).toBeNull();
    const afterAnswer = lookupOnce(db, 'hash', lookup);
    expect(answers).toHaveLength(3);
    forgetCachedKeys(db);
    const afterRevocation = lookupOnce(db, 'hash', lookup);
    expect(answers).toHaveLength(4);
    answers[2](actor);
    answers[3](null);
    expect(await afterAnswer).toBe(actor);
    expect(await afterRevocation).toBeNull();
  });
});
