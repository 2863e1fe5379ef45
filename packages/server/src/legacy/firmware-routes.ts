/**
 * Legacy firmware routes: the organization-scoped family (`/orgs/{org_name}/products/{product_name}/firmwares`,
 * answers `{"data": ...}`) and the flat one (`/firmwares`, answers `{"firmware": ...}` /
 * `{"firmwares": [...], "next_page"}`). Uploads are multipart (firmware-intake.ts); the multipart
 * parser is registered in this plugin's scope only, so no other route accepts multipart bodies.
 */
import multipart from '@fastify/multipart';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AdminApp, ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { optionalBody } from '../http/empty-body';
import { parseExpand } from '../http/expand';
import { notFound } from '../http/errors';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Prn, single, STANDARD_ERRORS } from '../http/schemas';
import type { Platform } from '../platform';
import { MAX_FIRMWARE_BYTES, receiveFirmware, removeStaleUploads } from './firmware-intake';
import { createFirmware, deleteFirmware, productNameOf, firmwareToWire, firmwareUrl, getFirmwareByPrn, getFirmwareByUuid, InvalidSignature, listFirmware, MAX_TTL_SECONDS, type FirmwareRow } from './firmware-service';
import { productForCreate } from './deployment-service';
import { DeploymentName, FirmwareUuid, Identifier, Org, OrgProduct } from './params';
import { requireProductNamed } from './scope';
import { Data, DataList, Firmware } from './wire-schemas';

const tags = ['legacy firmware'];
const Expand = Type.Optional(Type.String({ description: '`url` adds a download URL valid 24 hours.', examples: ['url'] }));
const InvalidSignatureBody = Type.Object(
  { errors: Type.Object({ detail: Type.Literal('invalid_signature') }) },
  { description: "meta.conf.ed25519 is missing or is not a signature of meta.conf by one of the organization's signing keys (the public API's answer)." },
);
/**
 * The multipart form, for the OpenAPI document only: the route reads its parts itself
 * (firmware-intake.ts), so Fastify must not validate a body; swaggerTransform shows the form.
 */
const UploadForm = (withProduct: boolean) =>
  Type.Object(
    {
      firmware: Type.String({ format: 'binary', description: 'The fwup archive (.fw): a zip whose meta.conf is signed in meta.conf.ed25519.' }),
      ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TTL_SECONDS, description: 'Seconds after upload when the firmware is deleted unless a deployment uses it.' })),
      ...(withProduct ? { product_prn: Prn('The product the firmware is for (its name must be the archive\'s meta-product).') } : {}),
    },
    { description: 'A multipart/form-data body.' },
  );
const documentedForm = (withProduct: boolean) => ({
  swaggerTransform: ({ schema, url }: { schema: object; url: string }) => ({ schema: { ...schema, body: UploadForm(withProduct) }, url }),
});
const UPLOAD_DESCRIPTION =
  'multipart/form-data: `firmware` (the fwup archive file) and optional `ttl` (seconds after which the firmware is deleted unless a deployment uses it). ' +
  "The archive's meta.conf must be signed (meta.conf.ed25519) by one of the organization's signing keys (else 500 `invalid_signature`), name this product in meta-product, " +
  `and carry meta-uuid and meta-version (422 naming what is wrong). A meta-uuid already uploaded is 409 \`firmware_exists\`. At most ${MAX_FIRMWARE_BYTES} bytes; streamed, never held in memory.`;

async function withUrl(platform: Platform, row: FirmwareRow, productName: string, expand: unknown) {
  const wire: ReturnType<typeof firmwareToWire> & { url?: string } = firmwareToWire(row, productName);
  if (parseExpand(expand, ['url'] as const).has('url')) wire.url = await firmwareUrl(platform, row);
  return wire;
}

const productName = (platform: Platform, productId: string) => productNameOf(platform.db, productId);

async function upload(platform: Platform, request: Parameters<typeof receiveFirmware>[0], reply: FastifyReply, product: (fields: Record<string, string>) => Promise<{ id: string; name: string } & Record<string, unknown>>, wrap: (wire: unknown) => unknown) {
  const intake = await receiveFirmware(request, path.join(platform.config.dataDir, 'tmp'));
  try {
    const target = await product(intake.fields);
    const row = await createFirmware(platform, actorOf(request), target as never, intake);
    return reply.code(201).send(wrap(firmwareToWire(row, target.name)));
  } catch (error) {
    if (error instanceof InvalidSignature) return reply.code(500).send(error.body());
    throw error;
  } finally {
    await intake.discard();
  }
}

function routes(app: AdminApp, platform: Platform) {
  const { db } = platform;
  const base = '/orgs/:org_name/products/:product_name/firmwares';

  app.post(base, {
    config: { ...documentedForm(false), counterpart: 'POST /binaries' },
    schema: { tags, summary: 'Upload a firmware (organization-scoped)', description: UPLOAD_DESCRIPTION, consumes: ['multipart/form-data'], params: Type.Object(OrgProduct), response: { 201: Data(Firmware, 'The firmware.'), 500: InvalidSignatureBody, ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const { org_name, product_name } = request.params;
      const product = await requireProductNamed(db, actorOf(request), org_name, product_name);
      return upload(platform, request, reply, async () => product, (wire) => ({ data: wire }));
    },
  });

  app.get(base, {
    config: { counterpart: 'GET /binaries' },
    schema: { tags, summary: "List a product's firmware (organization-scoped)", description: 'Newest first by default.', params: Type.Object(OrgProduct), querystring: Type.Object({ limit: LIST_QUERY_PROPERTIES.limit, order: LIST_QUERY_PROPERTIES.order, page: LIST_QUERY_PROPERTIES.page }), response: { 200: DataList(Firmware, 'A page of firmware.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const product = await requireProductNamed(db, actorOf(request), request.params.org_name, request.params.product_name);
      const page = await listFirmware(db, actorOf(request), product.id, request.query);
      return { data: page.items.map((row) => firmwareToWire(row, product.name)), next_page: page.nextPage };
    },
  });

  app.get(`${base}/:uuid`, {
    config: { counterpart: 'GET /binaries/:prn' },
    schema: { tags, summary: 'Get a firmware by uuid (organization-scoped)', description: '`expand=url` adds a download URL valid 24 hours.', params: Type.Object({ ...OrgProduct, uuid: FirmwareUuid }), querystring: Type.Object({ expand: Expand }), response: { 200: Data(Firmware, 'The firmware.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const product = await requireProductNamed(db, actorOf(request), request.params.org_name, request.params.product_name);
      const row = await getFirmwareByUuid(db, actorOf(request), product.id, request.params.uuid);
      return { data: await withUrl(platform, row, product.name, request.query.expand) };
    },
  });

  app.delete(`${base}/:uuid`, {
    config: { counterpart: 'DELETE /binaries/:prn' },
    schema: { tags, summary: 'Delete a firmware (organization-scoped)', description: 'A firmware a deployment uses is 409 `firmware_in_use`.', params: Type.Object({ ...OrgProduct, uuid: FirmwareUuid }), response: { 204: NoContent('Deleted, with its archive.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const product = await requireProductNamed(db, actorOf(request), request.params.org_name, request.params.product_name);
      await deleteFirmware(platform, actorOf(request), await getFirmwareByUuid(db, actorOf(request), product.id, request.params.uuid));
      return reply.code(204).send();
    },
  });

  app.post('/firmwares', {
    config: { ...documentedForm(true), counterpart: 'POST /binaries' },
    schema: { tags, summary: 'Upload a firmware', description: `${UPLOAD_DESCRIPTION} The product is the multipart field \`product_prn\`.`, consumes: ['multipart/form-data'], response: { 201: single('firmware', Firmware), 500: InvalidSignatureBody, ...STANDARD_ERRORS } },
    handler: async (request, reply) => upload(platform, request, reply, (fields) => productForCreate(db, actorOf(request), fields.product_prn), (wire) => ({ firmware: wire })),
  });

  app.get('/firmwares', {
    config: { counterpart: 'GET /binaries' },
    schema: { tags, summary: 'List firmware', description: 'All of the organization, or one product\'s with `product_prn`.', querystring: Type.Object({ product_prn: Type.Optional(Prn('Only this product\'s firmware.')), limit: LIST_QUERY_PROPERTIES.limit, order: LIST_QUERY_PROPERTIES.order, page: LIST_QUERY_PROPERTIES.page }), response: { 200: list('firmwares', Firmware), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = request.query.product_prn ? await productForCreate(db, actor, request.query.product_prn) : null;
      const page = await listFirmware(db, actor, product?.id ?? null, request.query);
      const names = new Map<string, string>();
      const items = [];
      for (const row of page.items) {
        if (!names.has(row.productId)) names.set(row.productId, await productName(platform, row.productId));
        items.push(firmwareToWire(row, names.get(row.productId)!));
      }
      return { firmwares: items, next_page: page.nextPage };
    },
  });

  const FlatParams = Type.Object({ firmware: Type.String({ minLength: 1, maxLength: 200, description: "The firmware's prn or its uuid." }) });
  const flatFirmware = async (request: { params: { firmware: string } } & Parameters<typeof actorOf>[0]) => {
    const actor = actorOf(request);
    return request.params.firmware.startsWith('prn:') ? getFirmwareByPrn(db, actor, request.params.firmware) : getFirmwareByUuid(db, actor, null, request.params.firmware);
  };

  app.get('/firmwares/:firmware', {
    config: { counterpart: 'GET /binaries/:prn' },
    schema: { tags, summary: 'Get a firmware', description: 'By prn or uuid; `expand=url` adds a download URL valid 24 hours.', params: FlatParams, querystring: Type.Object({ expand: Expand }), response: { 200: single('firmware', Firmware), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const row = await flatFirmware(request);
      return { firmware: await withUrl(platform, row, await productName(platform, row.productId), request.query.expand) };
    },
  });

  app.delete('/firmwares/:firmware', {
    config: { counterpart: 'DELETE /binaries/:prn' },
    ...optionalBody,
    schema: {
      tags,
      summary: 'Delete a firmware',
      description: 'By prn or uuid. The body may name `{"product_prn"}` (the public API sends it); then it must be the firmware\'s product, else 404. A firmware a deployment uses is 409 `firmware_in_use`.',
      params: FlatParams,
      body: Type.Object({ product_prn: Type.Optional(Prn('The firmware\'s product.')) }),
      response: { 204: NoContent('Deleted, with its archive.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const row = await flatFirmware(request);
      const productPrn = request.body.product_prn;
      if (productPrn !== undefined && (await productForCreate(db, actor, productPrn).catch(() => null))?.id !== row.productId) throw notFound('firmware', request.params.firmware);
      await deleteFirmware(platform, actor, row);
      return reply.code(204).send();
    },
  });
}

export const legacyFirmwareRoutes: ContextRoutes = async (app, platform) => {
  await removeStaleUploads(path.join(platform.config.dataDir, 'tmp'));
  await app.register(async (scope) => {
    // Busboy's own limits are set per request (firmware-intake.ts); the body limit of the JSON
    // routes does not apply to a streamed file part.
    await scope.register(multipart, { limits: { fileSize: MAX_FIRMWARE_BYTES } });
    routes(scope as unknown as AdminApp, platform);
  });
};
