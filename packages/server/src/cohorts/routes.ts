import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Name, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { Cohort, CohortDescription, CohortWindows, ProductPrn } from './api-schemas';
import { cohortToWire, createCohort, getCohort, listCohorts, updateCohort } from './service';

const CohortParams = PrnParams('Resource name of the cohort.');
const TAGS = ['cohorts'];

export const cohortRoutes: ContextRoutes = (app, { db }) => {
  app.post('/cohorts', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Create a cohort',
      description: 'A cohort groups devices of one product; releases are published to a cohort. 422 `product_prn` `not_found` unless the product is in the organization.',
      body: Type.Object({
        name: Name('Name of the cohort.'),
        description: Type.Optional(CohortDescription),
        maintenance_windows: CohortWindows,
        product_prn: ProductPrn('The product, in the same organization.'),
      }),
      response: { 201: single('cohort', Cohort), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ cohort: cohortToWire(await createCohort(db, actorOf(request), request.body)) }),
  });

  app.get('/cohorts', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'List cohorts',
      description: "Search fields: name and description (`:` `-` `~`), product_prn (`:`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`). Example: `product_prn:'prn:1:...'`.",
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('cohorts', Cohort), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listCohorts(db, actorOf(request), request.query);
      return { cohorts: page.items.map(cohortToWire), next_page: page.nextPage };
    },
  });

  app.get('/cohorts/:prn', {
    config: { role: 'read' },
    schema: { tags: TAGS, summary: 'Get a cohort', description: 'One cohort by its prn.', params: CohortParams, response: { 200: single('cohort', Cohort), ...STANDARD_ERRORS } },
    handler: async (request) => ({ cohort: cohortToWire(await getCohort(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/cohorts/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Update a cohort',
      description: 'Rename a cohort or change its description (null clears it). A cohort stays with its product: a different `product_prn` is 422 `immutable`. Cohorts cannot be deleted.',
      params: CohortParams,
      body: Type.Object({
        name: Type.Optional(Name()),
        description: Type.Optional(CohortDescription),
        maintenance_windows: CohortWindows,
        product_prn: Type.Optional(ProductPrn('The current product; any other is refused.')),
      }),
      response: { 200: single('cohort', Cohort), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ cohort: cohortToWire(await updateCohort(db, actorOf(request), request.params.prn, request.body)) }),
  });
};
