import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { Description, list, Name, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS } from '../http/schemas';
import { cohortToWire, createCohort, getCohort, listCohorts, updateCohort } from './service';

const PRODUCT_PRN_EXAMPLE = 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:product:5c2d8e1f-3a4b-4c5d-9e6f-7a8b9c0d1e2f';
const ProductPrn = (description: string) => Prn(description, PRODUCT_PRN_EXAMPLE);
const CohortDescription = Nullable(Description('What the cohort is for, 1 to 256 characters, or null.'));

const Cohort = Type.Object({
  ...ResourceFields,
  product_prn: ProductPrn('The product whose devices the cohort groups.'),
  name: Name('Name of the cohort, 1 to 128 characters.'),
  description: CohortDescription,
});

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
        product_prn: Type.Optional(ProductPrn('The current product; any other is refused.')),
      }),
      response: { 200: single('cohort', Cohort), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ cohort: cohortToWire(await updateCohort(db, actorOf(request), request.params.prn, request.body)) }),
  });
};
