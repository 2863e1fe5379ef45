import { Type } from 'typebox';
import { CallerId } from '../http/caller-id';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Name, NoContent, Nullable, Prn, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { Bundle } from './api-schemas';
import { bundlesToWire, createBundle, deleteBundle, getBundle, listBundles, updateBundle } from './service';

const VersionPrns = Type.Array(Prn('An artifact version.'), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'The artifact versions, in order.' });

const BundleParams = PrnParams('Resource name of the bundle.');

export const bundleRoutes: ContextRoutes = (app, { db }) => {
  const one = async (row: Parameters<typeof bundlesToWire>[1][number]) => (await bundlesToWire(db, [row]))[0];

  app.post('/bundles', {
    config: { role: 'write' },
    schema: {
      tags: ['bundles'],
      summary: 'Create a bundle',
      description: 'An immutable, ordered set of artifact versions (API version 1: `artifact_version_prns`). Only the name can change later.',
      body: Type.Object({ id: CallerId, name: Type.Optional(Nullable(Name())), artifact_version_prns: VersionPrns }),
      response: { 201: single('bundle', Bundle), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ bundle: await one(await createBundle(db, actorOf(request), request.body)) }),
  });

  app.get('/bundles', {
    config: { role: 'read' },
    schema: {
      tags: ['bundles'],
      summary: 'List bundles',
      description: 'Search fields: name (`:` `-` `~`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('bundles', Bundle), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listBundles(db, actorOf(request), request.query);
      return { bundles: await bundlesToWire(db, page.items), next_page: page.nextPage };
    },
  });

  app.get('/bundles/:prn', {
    config: { role: 'read' },
    schema: { tags: ['bundles'], summary: 'Get a bundle', description: 'One bundle with its artifact versions in order.', params: BundleParams, response: { 200: single('bundle', Bundle), ...STANDARD_ERRORS } },
    handler: async (request) => ({ bundle: await one(await getBundle(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/bundles/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['bundles'],
      summary: 'Rename a bundle',
      description: 'Only the name changes; artifact_version_prns is accepted unchanged and is 422 `immutable` otherwise.',
      params: BundleParams,
      body: Type.Object({ name: Type.Optional(Nullable(Name())), artifact_version_prns: Type.Optional(Type.Array(Type.String())) }),
      response: { 200: single('bundle', Bundle), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ bundle: await one(await updateBundle(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/bundles/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['bundles'],
      summary: 'Delete a bundle',
      description: 'Refused with 409 `bundle_in_use` while a release uses it.',
      params: BundleParams,
      response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteBundle(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
