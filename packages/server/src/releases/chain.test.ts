import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendAsLatest, applyLinkChanges, insertBefore, removeFromChain, validateChain, type ChainEdit, type ChainLink } from './chain';

/** Links for releases in the given order. */
function linked(...ids: string[]): ChainLink[] {
  return ids.map((id, i) => ({ id, nextReleaseId: ids[i + 1] ?? null }));
}

function changesOf(edit: ChainEdit) {
  if (!edit.ok) throw new Error(`edit refused: ${edit.reason}`);
  return edit.changes;
}

describe('validateChain', () => {
  it('an empty cohort has an empty chain', () => {
    expect(validateChain([])).toEqual({ ok: true, order: [] });
  });

  it('orders releases first to latest whatever the input order', () => {
    const links = linked('a', 'b', 'c', 'd');
    expect(validateChain([links[2], links[0], links[3], links[1]])).toEqual({ ok: true, order: ['a', 'b', 'c', 'd'] });
    expect(validateChain([{ id: 'solo', nextReleaseId: null }])).toEqual({ ok: true, order: ['solo'] });
  });

  it.each<[string, ChainLink[], string]>([
    ['two latest releases', [{ id: 'a', nextReleaseId: null }, { id: 'b', nextReleaseId: null }], 'two_latest'],
    ['a link to a release outside the set', [{ id: 'a', nextReleaseId: 'ghost' }, { id: 'b', nextReleaseId: null }], 'dangling_link'],
    ['a whole cycle (no latest)', [{ id: 'a', nextReleaseId: 'b' }, { id: 'b', nextReleaseId: 'a' }], 'cycle'],
    ['a self link', [{ id: 'a', nextReleaseId: 'a' }], 'cycle'],
    [
      'a path plus a separate cycle',
      [{ id: 'a', nextReleaseId: null }, { id: 'b', nextReleaseId: 'c' }, { id: 'c', nextReleaseId: 'b' }],
      'cycle',
    ],
    [
      'two releases pointing at the same next',
      [{ id: 'a', nextReleaseId: 'c' }, { id: 'b', nextReleaseId: 'c' }, { id: 'c', nextReleaseId: null }],
      'two_predecessors',
    ],
    ['a duplicated release', [{ id: 'a', nextReleaseId: null }, { id: 'a', nextReleaseId: null }], 'duplicate_release'],
  ])('refuses %s', (_name, links, reason) => {
    expect(validateChain(links)).toMatchObject({ ok: false, reason });
  });

  it('refuses a release of another cohort', () => {
    const links: ChainLink[] = [
      { id: 'a', nextReleaseId: 'b', cohortId: 'c1' },
      { id: 'b', nextReleaseId: null, cohortId: 'c2' },
    ];
    expect(validateChain(links, 'c1')).toEqual({ ok: false, reason: 'foreign_cohort', releaseId: 'b' });
    expect(validateChain(links)).toMatchObject({ ok: true });
  });

  it('names the releases of a separate cycle', () => {
    const result = validateChain([{ id: 'a', nextReleaseId: null }, { id: 'b', nextReleaseId: 'c' }, { id: 'c', nextReleaseId: 'b' }]);
    expect(result).toEqual({ ok: false, reason: 'cycle', releaseIds: ['b', 'c'] });
  });
});

describe('chain edits', () => {
  it('appendAsLatest links the old latest to the new release', () => {
    expect(changesOf(appendAsLatest(['a', 'b'], 'c'))).toEqual([
      { releaseId: 'b', nextReleaseId: 'c' },
      { releaseId: 'c', nextReleaseId: null },
    ]);
    expect(changesOf(appendAsLatest([], 'a'))).toEqual([{ releaseId: 'a', nextReleaseId: null }]);
    expect(appendAsLatest(['a'], 'a')).toEqual({ ok: false, reason: 'already_in_chain', releaseId: 'a' });
  });

  it('insertBefore relinks the predecessor', () => {
    expect(changesOf(insertBefore(['a', 'b'], 'x', 'b'))).toEqual([
      { releaseId: 'a', nextReleaseId: 'x' },
      { releaseId: 'x', nextReleaseId: 'b' },
    ]);
    expect(changesOf(insertBefore(['a', 'b'], 'x', 'a'))).toEqual([{ releaseId: 'x', nextReleaseId: 'a' }]);
    expect(insertBefore(['a'], 'x', 'other-cohort')).toEqual({ ok: false, reason: 'not_in_chain', releaseId: 'other-cohort' });
    expect(insertBefore(['a', 'x'], 'x', 'a')).toEqual({ ok: false, reason: 'already_in_chain', releaseId: 'x' });
  });

  it('removeFromChain joins the neighbours', () => {
    expect(changesOf(removeFromChain(['a', 'b', 'c'], 'b'))).toEqual([{ releaseId: 'a', nextReleaseId: 'c' }]);
    expect(changesOf(removeFromChain(['a', 'b', 'c'], 'c'))).toEqual([{ releaseId: 'b', nextReleaseId: null }]);
    expect(changesOf(removeFromChain(['a', 'b', 'c'], 'a'))).toEqual([]);
    expect(removeFromChain(['a'], 'z')).toEqual({ ok: false, reason: 'not_in_chain', releaseId: 'z' });
  });

  it('deleting a linked release without relinking breaks the chain', () => {
    const links = linked('a', 'b', 'c');
    expect(validateChain(applyLinkChanges(links, [], ['b']))).toMatchObject({ ok: false, reason: 'dangling_link' });
  });
});

type Edit = { kind: 'append' } | { kind: 'insert'; at: number } | { kind: 'remove'; at: number };

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant({ kind: 'append' as const }),
  fc.nat({ max: 50 }).map((at) => ({ kind: 'insert' as const, at })),
  fc.nat({ max: 50 }).map((at) => ({ kind: 'remove' as const, at })),
);

describe('chain edit properties', () => {
  it('any sequence of edits keeps a valid chain that matches a plain array model', () => {
    fc.assert(
      fc.property(fc.array(editArbitrary, { maxLength: 40 }), (edits) => {
        let links: ChainLink[] = [];
        const model: string[] = [];
        let counter = 0;
        for (const edit of edits) {
          const id = `r${counter++}`;
          let changes;
          let removed: string[] = [];
          if (edit.kind === 'append' || model.length === 0) {
            changes = changesOf(appendAsLatest(model, id));
            model.push(id);
          } else if (edit.kind === 'insert') {
            const index = edit.at % model.length;
            changes = changesOf(insertBefore(model, id, model[index]));
            model.splice(index, 0, id);
          } else {
            const index = edit.at % model.length;
            removed = [model[index]];
            changes = changesOf(removeFromChain(model, model[index]));
            model.splice(index, 1);
          }
          links = applyLinkChanges(links, changes, removed);
          const result = validateChain(links);
          expect(result).toEqual({ ok: true, order: model });
          // Each edit touches at most two existing rows: edits stay small transactions.
          expect(changes.length).toBeLessThanOrEqual(2);
        }
      }),
    );
  });

  it('any single re-pointed link is either still a valid chain or reported invalid, never silently accepted with lost releases', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.nat(), fc.option(fc.nat()), (length, from, to) => {
        const ids = Array.from({ length }, (_, i) => `r${i}`);
        const source = ids[from % length];
        const target = to === null ? null : ids[to % length];
        const links = applyLinkChanges(linked(...ids), [{ releaseId: source, nextReleaseId: target }]);
        const result = validateChain(links);
        if (result.ok) expect([...result.order].sort()).toEqual([...ids].sort());
      }),
    );
  });
});
