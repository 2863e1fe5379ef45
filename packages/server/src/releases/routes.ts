import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { CreateBody, fields, Release, UpdateBody } from './api-schemas';
import { createRelease, deleteRelease, getRelease, listReleases, updateRelease } from './service';
import { releaseToWire } from './wire';

const ReleaseParams = PrnParams('Resource name of the release.');
const tags = ['releases'];

export const releaseRoutes: ContextRoutes = (app, { db }) => {
  app.post('/releases', {
    config: { role: 'write' },
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
    config: { role: 'read' },
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
    config: { role: 'read' },
    schema: { tags, summary: 'Get a release', description: 'One release by its prn.', params: ReleaseParams, response: { 200: single('release', Release), ...STANDARD_ERRORS } },
    handler: async (request) => ({ release: releaseToWire(await getRelease(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/releases/:prn', {
    config: { role: 'write' },
    schema: {
      tags,
      summary: 'Update a release',
      description:
        'Change fields or move the release (`next_release_prn` / `previous_release_prn`). `disabled: false` resumes a halted release and clears `halted_at`. 409 `release_chain_invalid` for a change the chain cannot take, ' +
        '409 `release_phase_complete` for changing a phase_value that is 1.',
      params: ReleaseParams,
      body: UpdateBody,
      response: { 200: single('release', Release), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ release: releaseToWire(await updateRelease(db, actorOf(request), request.params.prn, fields(request.body))) }),
  });

  app.delete('/releases/:prn', {
    config: { role: 'write' },
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
