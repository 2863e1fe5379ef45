import { describe, expect, it } from 'vitest';
import { useFleet } from '../support/fleet';
import { expectValidChain } from '../support/release-chain';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);

async function setup() {
  const cohort = await fleet.cohort();
  const bundle = await fleet.bundle();
  const create = (fields: Record<string, unknown> = {}) =>
    t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'r', required: false, schedule_date: null, ...fields });
  return { cohort, bundle, create };
}

const future = () => new Date(Date.now() + 86_400_000).toISOString();

describe('releases: one product per bundle', () => {
  it("refuses a bundle already released to another product's cohort, on create and on change", async () => {
    const { bundle, create } = await setup();
    expect((await create({ name: 'first' })).status).toBe(201);
    const product = await t.api('POST', '/products', { name: `other-${Date.now()}` });
    const otherProduct = (await t.api('POST', '/cohorts', { name: 'other', product_prn: product.body.product.prn })).body.cohort;
    // Another cohort of the same product may have it.
    expect((await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: (await fleet.cohort()).prn, name: 'same', required: false, schedule_date: null })).status).toBe(201);
    const across = await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: otherProduct.prn, name: 'across', required: false, schedule_date: null });
    expect(across.status).toBe(422);
    expect(across.body.errors[0].context).toMatchObject({ field: 'bundle_prn', reason: 'released_to_other_product', product_prn: expect.stringContaining(':product:') });
    const own = await t.api('POST', '/releases', { bundle_prn: (await fleet.bundle()).prn, cohort_prn: otherProduct.prn, name: 'own', required: false, schedule_date: null });
    expect(own.status).toBe(201);
    const changed = await t.api('PATCH', `/releases/${own.body.release.prn}`, { bundle_prn: bundle.prn });
    expect(changed.body.errors?.[0].context.reason).toBe('released_to_other_product');
    expect((await t.api('GET', `/releases/${own.body.release.prn}`)).body.release.bundle_prn).not.toBe(bundle.prn);
  });
});

describe('releases: fields', () => {
  it('creates with every field, reads, lists and updates', async () => {
    const { cohort, bundle, create } = await setup();
    const res = await create({ name: 'v1', description: 'first', required: true, disabled: false, version: '1.2.0', 'version-requirement': '~> 1.1', phase_mode: 'numeric', phase_value: 1 });
    expect(res.status).toBe(201);
    const release = res.body.release;
    expect(release).toMatchObject({
      bundle_prn: bundle.prn,
      cohort_prn: cohort.prn,
      name: 'v1',
      description: 'first',
      required: true,
      disabled: false,
      schedule_date: null,
      schedule_complete: true,
      version: '1.2.0',
      version_requirement: '~> 1.1',
      phase_mode: 'numeric',
      phase_tags: null,
      phase_type: 'percent',
      phase_value: 1,
      next_release_prn: null,
      previous_release_prn: null,
    });
    expect((await t.api('GET', `/releases/${release.prn}`)).body.release).toEqual(release);
    const patched = await t.api('PATCH', `/releases/${release.prn}`, { prn: release.prn, description: 'changed', disabled: true, version_requirement: '>= 1.0.0 and < 2.0.0' });
    expect(patched.status).toBe(200);
    expect(patched.body.release).toMatchObject({ description: 'changed', disabled: true, version_requirement: '>= 1.0.0 and < 2.0.0' });
    const listed = await t.api('GET', `/releases?search=${encodeURIComponent(`name:'v1'`)}`);
    expect(listed.body.releases.map((r: any) => r.prn)).toContain(release.prn);
  });

  it('refuses bad versions, requirements, phase values and tags mode without tags (422)', async () => {
    const { create } = await setup();
    const field = async (body: Record<string, unknown>) => (await create(body)).body.errors?.map((e: any) => `${e.context.field}:${e.context.reason}`);
    expect(await field({ version: '1.2' })).toEqual(['version:invalid_version']);
    expect(await field({ version_requirement: '~> 1' })).toEqual(['version_requirement:invalid_requirement']);
    expect(await field({ 'version-requirement': 'lol' })).toEqual(['version_requirement:invalid_requirement']);
    expect(await field({ phase_value: 1.5 })).toEqual(['phase_value:out_of_range']);
    expect(await field({ phase_value: 1_000_000_001 })).toEqual(['phase_value:out_of_range']);
    expect(await field({ phase_value: -0.1 })).toEqual(['phase_value:out_of_range']);
    expect(await field({ phase_mode: 'tags' })).toEqual(['phase_tags:required_in_tags_mode']);
    expect(await field({ phase_mode: 'tags', phase_tags: [] })).toEqual(['phase_tags:required_in_tags_mode']);
    expect(await field({ phase_value: 0.5, phase_type: 'static' })).toEqual(['phase_type:does_not_match_phase_value']);
    expect(await field({ schedule_date: 'tomorrow' })).toEqual(['schedule_date:invalid_date_time']);
    expect(await field({ name: '' })).toEqual(['name:too_short']);
    expect((await t.api('POST', '/releases', {})).status).toBe(422);
  });

  it('accepts the phase value forms: fractions, counts, tags', async () => {
    const { create } = await setup();
    const fraction = await create({ phase_value: 0.25 });
    expect(fraction.body.release).toMatchObject({ phase_value: 0.25, phase_type: 'percent' });
    await t.api('PATCH', `/releases/${fraction.body.release.prn}`, { phase_value: 5000 }).then((res) => {
      expect(res.status).toBe(200);
      expect(res.body.release).toMatchObject({ phase_value: 5000, phase_type: 'static' });
    });
    const tags = await t.api('PATCH', `/releases/${fraction.body.release.prn}`, { phase_mode: 'tags', phase_tags: ['canary'], phase_value: null });
    expect(tags.status).toBe(200);
    expect(tags.body.release).toMatchObject({ phase_mode: 'tags', phase_tags: ['canary'], phase_value: null });
  });

  it('phase_value 1 completes the phase for good (409)', async () => {
    const { create } = await setup();
    const phased = (await create({ phase_value: 0.1 })).body.release;
    expect((await t.api('PATCH', `/releases/${phased.prn}`, { phase_value: 1 })).status).toBe(200);
    const again = await t.api('PATCH', `/releases/${phased.prn}`, { phase_value: 0.5 });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('release_phase_complete');
    expect((await t.api('PATCH', `/releases/${phased.prn}`, { phase_value: 1 })).status).toBe(200); // unchanged is fine
  });

  it('hides other organizations and refuses their prns', async () => {
    const { create, cohort } = await setup();
    const mine = (await create()).body.release;
    const other = await t.createOrganization();
    expect((await other.api('GET', `/releases/${mine.prn}`)).status).toBe(404);
    expect((await other.api('PATCH', `/releases/${mine.prn}`, { name: 'x' })).status).toBe(404);
    expect((await other.api('DELETE', `/releases/${mine.prn}`)).status).toBe(404);
    expect((await other.api('GET', '/releases')).body.releases).toEqual([]);
    const theirs = await other.api('POST', '/releases', { bundle_prn: mine.bundle_prn, cohort_prn: cohort.prn, name: 'x', required: false, schedule_date: null });
    expect(theirs.status).toBe(422);
    expect(theirs.body.errors[0].context.field).toBe('cohort_prn');
  });

  it('enforces roles: read may list, not write', async () => {
    const { create } = await setup();
    const release = (await create()).body.release;
    const read = await t.keyWithRole('read');
    expect((await t.api('GET', `/releases/${release.prn}`, undefined, { key: read })).status).toBe(200);
    expect((await t.api('PATCH', `/releases/${release.prn}`, { name: 'y' }, { key: read })).status).toBe(403);
    expect((await t.api('POST', '/releases', {}, { key: null })).status).toBe(401);
  });
});

describe('releases: the chain', () => {
  it('appends as latest, inserts before next_release_prn or after previous_release_prn, moves and deletes', async () => {
    const { cohort, create } = await setup();
    const a = (await create({ name: 'a' })).body.release;
    const c = (await create({ name: 'c' })).body.release;
    const b = (await create({ name: 'b', next_release_prn: c.prn })).body.release;
    const d = (await create({ name: 'd', previous_release_prn: c.prn })).body.release;
    expect(await expectValidChain(t.api, cohort.prn)).toEqual([a.prn, b.prn, c.prn, d.prn]);
    expect((await t.api('PATCH', `/releases/${a.prn}`, { next_release_prn: null })).status).toBe(200);
    expect(await expectValidChain(t.api, cohort.prn)).toEqual([b.prn, c.prn, d.prn, a.prn]);
    expect((await t.api('PATCH', `/releases/${a.prn}`, { previous_release_prn: null })).status).toBe(200);
    expect(await expectValidChain(t.api, cohort.prn)).toEqual([a.prn, b.prn, c.prn, d.prn]);
    expect((await t.api('DELETE', `/releases/${b.prn}`)).status).toBe(204);
    expect(await expectValidChain(t.api, cohort.prn)).toEqual([a.prn, c.prn, d.prn]);
    expect((await t.api('DELETE', `/releases/${d.prn}`)).status).toBe(204);
    expect(await expectValidChain(t.api, cohort.prn)).toEqual([a.prn, c.prn]);
  });

  it('answers 409 and changes nothing for a cycle, another cohort or non-adjacent neighbours', async () => {
    const { cohort, create } = await setup();
    const a = (await create({ name: 'a' })).body.release;
    const b = (await create({ name: 'b' })).body.release;
    const c = (await create({ name: 'c' })).body.release;
    const before = await expectValidChain(t.api, cohort.prn);
    const self = await t.api('PATCH', `/releases/${b.prn}`, { next_release_prn: b.prn });
    expect(self.status).toBe(409);
    expect(self.body.errors[0]).toMatchObject({ code: 'release_chain_invalid', context: { reason: 'cycle' } });
    const gap = await t.api('PATCH', `/releases/${c.prn}`, { previous_release_prn: null, next_release_prn: b.prn });
    expect(gap.status).toBe(409);
    expect(gap.body.errors[0].context.reason).toBe('not_adjacent');
    const elsewhere = await setup();
    const foreign = (await elsewhere.create({ name: 'x' })).body.release;
    const cross = await t.api('PATCH', `/releases/${a.prn}`, { next_release_prn: foreign.prn });
    expect(cross.status).toBe(409);
    expect(cross.body.errors[0].context.reason).toBe('foreign_cohort');
    const crossCreate = await create({ next_release_prn: foreign.prn });
    expect(crossCreate.body.errors[0].context.reason).toBe('foreign_cohort');
    expect((await t.api('PATCH', `/releases/${a.prn}`, { cohort_prn: elsewhere.cohort.prn })).status).toBe(422);
    expect(await expectValidChain(t.api, cohort.prn)).toEqual(before);
  });

  it('only the latest may be scheduled in the future or phased; no new latest while it is', async () => {
    const { cohort, create } = await setup();
    const a = (await create({ name: 'a' })).body.release;
    // Created phased: one created without phase_value is complete (1) and can never be phased.
    const scheduled = (await create({ name: 'b', schedule_date: future(), phase_value: 0.2 })).body.release;
    expect(scheduled.schedule_complete).toBe(false);
    const blocked = await create({ name: 'c' });
    expect(blocked.status).toBe(409);
    expect(blocked.body.errors[0]).toMatchObject({ code: 'release_chain_invalid', context: { reason: 'scheduled_not_latest', release_prn: scheduled.prn } });
    expect((await create({ name: 'c', phase_value: 1 })).status).toBe(409);
    expect((await create({ name: 'c', next_release_prn: scheduled.prn, schedule_date: future() })).status).toBe(409);
    expect((await create({ name: 'c', next_release_prn: scheduled.prn, phase_value: 0.5 })).body.errors[0].context.reason).toBe('phased_not_latest');
    expect((await t.api('PATCH', `/releases/${a.prn}`, { phase_value: 0.5 })).status).toBe(409);
    expect((await t.api('PATCH', `/releases/${scheduled.prn}`, { schedule_date: null })).status).toBe(200);
    const whilePhased = await create({ name: 'd' });
    expect(whilePhased.body.errors[0].context.reason).toBe('phased_not_latest');
    expect((await t.api('PATCH', `/releases/${scheduled.prn}`, { previous_release_prn: null })).status).toBe(409); // a phased release cannot leave the latest spot
    expect((await t.api('PATCH', `/releases/${scheduled.prn}`, { phase_value: 1 })).status).toBe(200);
    expect((await create({ name: 'd' })).status).toBe(201);
    expect(await expectValidChain(t.api, cohort.prn)).toHaveLength(3);
  });
});
