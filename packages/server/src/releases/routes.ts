import { Type, type Static } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { invalidField } from '../http/errors';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { Description, list, Name, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { createRelease, deleteRelease, getRelease, listReleases, updateRelease, type ReleaseFields } from './service';
import { releaseToWire } from './wire';

const PhaseMode = Type.Union([Type.Literal('numeric'), Type.Literal('tags')], { description: 'numeric (default): phase_value decides; tags: devices with one of phase_tags.' });
/** Nullable() only handles single-typed schemas; this is an enum, so null is one more member. */
const PhaseType = Type.Union([Type.Literal('static'), Type.Literal('percent'), Type.Null()], { description: 'Derived from phase_value: percent for 0..1, static for a device count.' });
const PhaseValue = Type.Number({
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'A fraction of the cohort in [0,1] or an integer device count 2..1,000,000,000. 1 completes the phase and is final.',
  examples: [0.1],
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, description: 'A device needs one of these (tags mode).' });
const Requirement = Type.String({ minLength: 1, maxLength: 256, description: "An Elixir version requirement, e.g. '~> 1.2' or '>= 1.0.0 and < 2.0.0'." });

const Release = Type.Object({
  ...ResourceFields,
  bundle_prn: Prn('The bundle this release installs.'),
  cohort_prn: Prn('The cohort whose chain the release belongs to.'),
  name: Name('Release name.'),
  description: Nullable(Description()),
  required: Type.Boolean({ description: 'Devices must pass through a required release.' }),
  disabled: Type.Boolean({ description: 'A disabled release is never resolved.' }),
  schedule_date: Nullable(Timestamp('Not resolvable before this moment.')),
  schedule_complete: Type.Boolean({ description: 'Derived: true once schedule_date has passed (or when none is set).' }),
  version: Nullable(Type.String({ description: 'The Elixir-style version this release installs.' })),
  version_requirement: Nullable(Requirement),
  phase_mode: PhaseMode,
  phase_tags: Nullable(Tags),
  phase_type: PhaseType,
  phase_value: Nullable(PhaseValue),
  phase_claim_count: Type.Integer({ description: 'Devices that hold a slot of this phased release.' }),
  next_release_prn: Nullable(Prn('The next (newer) release; null for the latest.')),
  previous_release_prn: Nullable(Prn('The previous (older) release; null for the first.')),
});

const writable = {
  bundle_prn: Prn('The bundle this release installs.'),
  cohort_prn: Prn('The cohort; fixed once created.'),
  name: Name('Release name.'),
  description: Type.Optional(Nullable(Description())),
  required: Type.Boolean(),
  disabled: Type.Optional(Type.Boolean({ default: false })),
  schedule_date: Nullable(Type.String({ description: 'RFC 3339 date-time, or null.' })),
  schedule_complete: Type.Optional(Type.Boolean({ description: 'Ignored: derived from schedule_date.' })),
  version: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  version_requirement: Type.Optional(Nullable(Requirement)),
  'version-requirement': Type.Optional(Nullable(Requirement)),
  phase_mode: Type.Optional(PhaseMode),
  phase_tags: Type.Optional(Nullable(Tags)),
  phase_type: Type.Optional(PhaseType),
  phase_value: Type.Optional(Nullable(PhaseValue)),
  next_release_prn: Type.Optional(Nullable(Prn('Insert (or move) right before this release.'))),
  previous_release_prn: Type.Optional(Nullable(Prn('Insert (or move) right after this release.'))),
};

const CreateBody = Type.Object(writable);
const UpdateBody = Type.Partial(Type.Object(writable));

/** Both spellings are accepted; sending both with different values is a mistake. */
function fields(body: Static<typeof UpdateBody>): ReleaseFields {
  const { 'version-requirement': dashed, schedule_complete: _derived, ...rest } = body;
  if (dashed !== undefined && rest.version_requirement !== undefined && dashed !== rest.version_requirement) {
    throw invalidField('version_requirement', 'conflicts_with_version-requirement');
  }
  return { ...rest, version_requirement: rest.version_requirement ?? dashed };
}

const ReleaseParams = PrnParams('Resource name of the release.');
const tags = ['releases'];

export const releaseRoutes: ContextRoutes = (app, { db }) => {
  app.post('/releases', {
    schema: {
      tags,
      summary: 'Create a release',
      description:
        'Without a position the release becomes the latest of its cohort; `next_release_prn` inserts it right before that release. ' +
        '409 `release_chain_invalid` when the chain cannot take it (another cohort, a pending latest, a future schedule or a phase anywhere but the latest).',
      body: CreateBody,
      response: { 201: single('release', Release), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const created = await createRelease(db, actorOf(request), { ...fields(body), bundle_prn: body.bundle_prn, cohort_prn: body.cohort_prn, name: body.name, required: body.required, schedule_date: body.schedule_date });
      return reply.code(201).send({ release: releaseToWire(created) });
    },
  });

  app.get('/releases', {
    schema: {
      tags,
      summary: 'List releases',
      description: 'Search fields: name, description, version (`:` `-` `~`), required, disabled (`:`), cohort_prn, bundle_prn (`:`), schedule_date, inserted_at, updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('releases', Release), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listReleases(db, actorOf(request), request.query);
      return { releases: page.items.map((row) => releaseToWire(row)), next_page: page.nextPage };
    },
  });

  app.get('/releases/:prn', {
    schema: { tags, summary: 'Get a release', description: 'One release by its prn.', params: ReleaseParams, response: { 200: single('release', Release), ...STANDARD_ERRORS } },
    handler: async (request) => ({ release: releaseToWire(await getRelease(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/releases/:prn', {
    schema: {
      tags,
      summary: 'Update a release',
      description:
        'Change fields or move the release (`next_release_prn` / `previous_release_prn`). 409 `release_chain_invalid` for a change the chain cannot take, ' +
        '409 `release_phase_complete` for changing a phase_value that is 1.',
      params: ReleaseParams,
      body: UpdateBody,
      response: { 200: single('release', Release), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ release: releaseToWire(await updateRelease(db, actorOf(request), request.params.prn, fields(request.body))) }),
  });

  app.delete('/releases/:prn', {
    schema: {
      tags,
      summary: 'Delete a release',
      description: 'Its neighbours are joined, so the chain stays whole; its phase claims go with it.',
      params: ReleaseParams,
      response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteRelease(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
