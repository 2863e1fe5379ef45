/**
 * Legacy deployment routes: `/orgs/{org_name}/products/{product_name}/deployments[/{name}]`
 * (`{"data": ...}`, the firmware field is `firmware`, update by PUT) and the flat
 * `/deployments[/{deployment_prn}]` (`{"deployment": ...}`, `firmware_uuid`, update by PATCH),
 * plus the per-device stats `.../devices/{identifier}/deployments/{name}/stats`.
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Prn, single, STANDARD_ERRORS } from '../http/schemas';
import {
  attemptsOf,
  createDeployment,
  deleteDeployment,
  deploymentToWire,
  firmwareUuidOf,
  getDeploymentByName,
  getDeploymentByPrn,
  listDeployments,
  productForCreate,
  updateDeployment,
  type DeploymentInput,
} from './deployment-service';
import { DeploymentName, FirmwareUuid, Identifier, Org, OrgProduct } from './params';
import { deviceNamed } from './org-service';
import { requireProductNamed } from './scope';
import { Data, DataList, Deployment, DeploymentBody } from './wire-schemas';

const tags = ['legacy deployments'];
const Named = Type.Object({ ...OrgProduct, deployment_name: DeploymentName });
const PageQuery = Type.Object({ limit: LIST_QUERY_PROPERTIES.limit, order: LIST_QUERY_PROPERTIES.order, page: LIST_QUERY_PROPERTIES.page });
const FIELDS = 'Fields: `name`, the firmware uuid, `conditions` (`version`: an Elixir requirement, `tags`), `is_active` or `state` (`on`/`off`), `delta_updatable`. Each refusal is a 422 naming the field.';

/** The flat create names its product in the body (one object, so the OpenAPI document lists every field). */
const FlatCreateBody = Type.Object(
  { ...DeploymentBody('firmware_uuid').properties, product_prn: Type.Optional(Type.Unknown({ description: 'The product (required).' })) },
  { additionalProperties: true },
);

/** The org paths call the firmware field `firmware`; the service speaks `firmware_uuid`. */
function fromOrgBody(body: Record<string, unknown>): DeploymentInput {
  const { firmware, ...rest } = body;
  return { ...rest, firmware_uuid: firmware };
}

export const legacyDeploymentRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;
  const base = '/orgs/:org_name/products/:product_name/deployments';

  app.post(base, {
    config: { counterpart: 'POST /releases' },
    schema: { tags, summary: 'Create a deployment (organization-scoped)', description: FIELDS, params: Type.Object(OrgProduct), body: DeploymentBody('firmware'), response: { 201: Data(Deployment, 'The deployment.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      const { row, firmwareUuid } = await createDeployment(db, actor, product.id, fromOrgBody(request.body), 'firmware');
      return reply.code(201).send({ data: deploymentToWire(row, firmwareUuid) });
    },
  });

  app.get(base, {
    config: { counterpart: 'GET /releases' },
    schema: { tags, summary: "List a product's deployments (organization-scoped)", description: 'Newest first by default.', params: Type.Object(OrgProduct), querystring: PageQuery, response: { 200: DataList(Deployment, 'A page of deployments.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      const page = await listDeployments(db, actor, product.id, request.query);
      return { data: page.items, next_page: page.nextPage };
    },
  });

  app.get(`${base}/:deployment_name`, {
    config: { counterpart: 'GET /releases/:prn' },
    schema: { tags, summary: 'Get a deployment by name (organization-scoped)', description: 'One deployment.', params: Named, response: { 200: Data(Deployment, 'The deployment.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      const row = await getDeploymentByName(db, actor, product.id, request.params.deployment_name);
      return { data: deploymentToWire(row, await firmwareUuidOf(db, row)) };
    },
  });

  app.put(`${base}/:deployment_name`, {
    config: { counterpart: 'PATCH /releases/:prn' },
    schema: { tags, summary: 'Update a deployment (organization-scoped)', description: `Only the fields sent change. ${FIELDS}`, params: Named, body: DeploymentBody('firmware'), response: { 200: Data(Deployment, 'The deployment.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      const current = await getDeploymentByName(db, actor, product.id, request.params.deployment_name);
      const { row, firmwareUuid } = await updateDeployment(db, actor, current, fromOrgBody(request.body), 'firmware');
      return { data: deploymentToWire(row, firmwareUuid) };
    },
  });

  app.delete(`${base}/:deployment_name`, {
    config: { counterpart: 'DELETE /releases/:prn' },
    schema: { tags, summary: 'Delete a deployment (organization-scoped)', description: 'Its attempt counts go with it.', params: Named, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      await deleteDeployment(db, await getDeploymentByName(db, actor, product.id, request.params.deployment_name));
      return reply.code(204).send();
    },
  });

  app.get('/orgs/:org_name/products/:product_name/devices/:identifier/deployments/:deployment_name/stats', {
    config: { counterpart: 'GET /releases/:prn/rollout' },
    schema: {
      tags,
      summary: "A device's update attempts for a deployment",
      description: 'Each `GET /device/update` without `preflight` that offered this deployment to the device counts one attempt.',
      params: Type.Object({ ...OrgProduct, identifier: Identifier, deployment_name: DeploymentName }),
      response: { 200: Data(Type.Object({ attempts: Type.Integer() }), 'The counts.'), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      const deployment = await getDeploymentByName(db, actor, product.id, request.params.deployment_name);
      const device = await deviceNamed(db, actor, product.id, request.params.identifier);
      return { data: { attempts: await attemptsOf(db, deployment.id, device.id) } };
    },
  });

  app.post('/deployments', {
    config: { counterpart: 'POST /releases' },
    schema: { tags, summary: 'Create a deployment', description: `Names its product by \`product_prn\`. ${FIELDS}`, body: FlatCreateBody, response: { 201: single('deployment', Deployment), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const body = request.body as DeploymentInput & { product_prn?: unknown };
      const product = await productForCreate(db, actor, body.product_prn);
      const { row, firmwareUuid } = await createDeployment(db, actor, product.id, body, 'firmware_uuid');
      return reply.code(201).send({ deployment: deploymentToWire(row, firmwareUuid) });
    },
  });

  app.get('/deployments', {
    config: { counterpart: 'GET /releases' },
    schema: { tags, summary: 'List deployments', description: "All of the organization's, or one product's with `product_prn`.", querystring: Type.Object({ product_prn: Type.Optional(Prn('Only this product.')), ...PageQuery.properties }), response: { 200: list('deployments', Deployment), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = request.query.product_prn ? await productForCreate(db, actor, request.query.product_prn) : null;
      const page = await listDeployments(db, actor, product?.id ?? null, request.query);
      return { deployments: page.items, next_page: page.nextPage };
    },
  });

  const Params = Type.Object({ prn: Prn('Resource name of the deployment.') });
  app.get('/deployments/:prn', {
    config: { counterpart: 'GET /releases/:prn' },
    schema: { tags, summary: 'Get a deployment', description: 'One deployment by prn.', params: Params, response: { 200: single('deployment', Deployment), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const row = await getDeploymentByPrn(db, actorOf(request), request.params.prn);
      return { deployment: deploymentToWire(row, await firmwareUuidOf(db, row)) };
    },
  });

  app.patch('/deployments/:prn', {
    config: { counterpart: 'PATCH /releases/:prn' },
    schema: { tags, summary: 'Update a deployment', description: `Only the fields sent change. ${FIELDS}`, params: Params, body: DeploymentBody('firmware_uuid'), response: { 200: single('deployment', Deployment), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const current = await getDeploymentByPrn(db, actor, request.params.prn);
      const { row, firmwareUuid } = await updateDeployment(db, actor, current, request.body as DeploymentInput, 'firmware_uuid');
      return { deployment: deploymentToWire(row, firmwareUuid) };
    },
  });

  app.delete('/deployments/:prn', {
    config: { counterpart: 'DELETE /releases/:prn' },
    schema: { tags, summary: 'Delete a deployment', description: 'Its attempt counts go with it.', params: Params, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteDeployment(db, await getDeploymentByPrn(db, actorOf(request), request.params.prn));
      return reply.code(204).send();
    },
  });
};
