/**
 * HTTP side of the legacy API's organization-scoped CA certificates (by serial), devices (by
 * identifier, with the legacy fields of legacy-device.ts) and device certificates (by serial),
 * all answering `{"data": ...}`; the work is in org-service.ts.
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { NoContent, Nullable, STANDARD_ERRORS } from '../http/schemas';
import {
  addDeviceCertificate,
  caWire,
  createLegacyDevice,
  deleteCa,
  deleteDeviceCertificateBySerial,
  deleteLegacyDevice,
  deviceCertificateWire,
  legacyDevice,
  listCas,
  listDeviceCertificates,
  listProductDevices,
  registerCa,
  updateLegacyDevice,
} from './org-service';
import { Identifier, Org, OrgProduct } from './params';
import { requireOrganizationNamed, requireProductNamed } from './scope';

const tags = ['legacy organization-scoped'];
const DeviceParams = Type.Object({ ...OrgProduct, identifier: Identifier });
const Serial = Type.String({ minLength: 1, maxLength: 128, description: 'Decimal serial number.' });
const PageQuery = Type.Object({ limit: LIST_QUERY_PROPERTIES.limit, order: LIST_QUERY_PROPERTIES.order, page: LIST_QUERY_PROPERTIES.page });
const Data = (description: string) => Type.Object({ data: Type.Record(Type.String(), Type.Unknown()) }, { description });
const DataList = (description: string) => Type.Object({ data: Type.Array(Type.Record(Type.String(), Type.Unknown())), next_page: Nullable(Type.String()) }, { description });
const Tags = Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 128 }))));
const DeviceBody = {
  description: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
  tags: Tags,
  target: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  healthy: Type.Optional(Type.Boolean({ description: 'false quarantines the device; true lifts the quarantine.' })),
  last_communication: Type.Optional(Type.Unknown({ description: 'Accepted and ignored: the server records when the device last called.' })),
};

export const legacyOrganizationRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.get('/orgs/:org_name/ca_certificates', {
    config: { counterpart: 'GET /ca_certificates' },
    schema: { tags, summary: "List the organization's CA certificates", description: 'Newest first by default.', params: Type.Object(Org), querystring: PageQuery, response: { 200: DataList('A page of CA certificates.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      await requireOrganizationNamed(db, actor, request.params.org_name);
      return listCas(db, actor, request.query);
    },
  });

  app.post('/orgs/:org_name/ca_certificates', {
    config: { counterpart: 'POST /ca_certificates' },
    schema: {
      tags,
      summary: 'Register a CA certificate',
      description: '`cert` (PEM or base64 of PEM) and `verification_cert`, a certificate it signed whose CN is a live verification code (`POST /ca_certificates/verification_codes`); optional `description`.',
      params: Type.Object(Org),
      body: Type.Object({ cert: Type.String({ minLength: 1, maxLength: 65536 }), verification_cert: Type.String({ minLength: 1, maxLength: 65536 }), description: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))) }),
      response: { 201: Data('The CA certificate.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      await requireOrganizationNamed(db, actor, request.params.org_name);
      return reply.code(201).send({ data: await registerCa(db, actor, request.body) });
    },
  });

  app.get('/orgs/:org_name/ca_certificates/:serial', {
    config: { counterpart: 'GET /ca_certificates/:prn' },
    schema: { tags, summary: 'Get a CA certificate by serial', description: 'The newest of the organization with that serial.', params: Type.Object({ ...Org, serial: Serial }), response: { 200: Data('The CA certificate.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      await requireOrganizationNamed(db, actor, request.params.org_name);
      return { data: await caWire(db, actor, request.params.serial) };
    },
  });

  app.delete('/orgs/:org_name/ca_certificates/:serial', {
    config: { counterpart: 'DELETE /ca_certificates/:prn' },
    schema: { tags, summary: 'Delete a CA certificate by serial', description: 'As `DELETE /ca_certificates/{prn}`.', params: Type.Object({ ...Org, serial: Serial }), response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      await requireOrganizationNamed(db, actor, request.params.org_name);
      await deleteCa(db, actor, request.params.serial);
      return reply.code(204).send();
    },
  });

  const devicesPath = '/orgs/:org_name/products/:product_name/devices';
  app.get(devicesPath, {
    config: { counterpart: 'GET /devices' },
    schema: { tags, summary: "List a product's devices (legacy view)", description: 'With healthy, last_communication, status, version and firmware_metadata.', params: Type.Object(OrgProduct), querystring: PageQuery, response: { 200: DataList('A page of devices.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return listProductDevices(db, actor, product.id, request.query);
    },
  });

  app.post(devicesPath, {
    config: { counterpart: 'POST /devices' },
    schema: { tags, summary: 'Create a device (legacy)', description: '`identifier` (1 to 128 characters, unique in the organization), optional description, tags, target, healthy.', params: Type.Object(OrgProduct), body: Type.Object({ identifier: Type.String({ minLength: 1, maxLength: 128 }), ...DeviceBody }), response: { 201: Data('The device.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return reply.code(201).send({ data: await createLegacyDevice(db, actor, product.id, request.body) });
    },
  });

  app.get(`${devicesPath}/:identifier`, {
    config: { counterpart: 'GET /devices/:prn' },
    schema: { tags, summary: 'Get a device by identifier (legacy view)', description: 'One device.', params: DeviceParams, response: { 200: Data('The device.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return { data: await legacyDevice(db, actor, product.id, request.params.identifier) };
    },
  });

  app.put(`${devicesPath}/:identifier`, {
    config: { counterpart: 'PATCH /devices/:prn' },
    schema: { tags, summary: 'Update a device (legacy)', description: 'Only the fields sent change; `healthy: false` quarantines, `last_communication` is ignored.', params: DeviceParams, body: Type.Object({ identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), ...DeviceBody }), response: { 200: Data('The device.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return { data: await updateLegacyDevice(db, actor, product.id, request.params.identifier, request.body) };
    },
  });

  app.delete(`${devicesPath}/:identifier`, {
    config: { counterpart: 'DELETE /devices/:prn' },
    schema: { tags, summary: 'Delete a device (legacy)', description: 'As `DELETE /devices/{prn}`.', params: DeviceParams, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      await deleteLegacyDevice(db, actor, product.id, request.params.identifier);
      return reply.code(204).send();
    },
  });

  const certificatesPath = `${devicesPath}/:identifier/certificates`;
  app.get(certificatesPath, {
    config: { counterpart: 'GET /device_certificates' },
    schema: { tags, summary: "List a device's certificates", description: 'Newest first.', params: DeviceParams, response: { 200: Type.Object({ data: Type.Array(Type.Record(Type.String(), Type.Unknown())) }, { description: 'The certificates.' }), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return { data: await listDeviceCertificates(db, actor, product.id, request.params.identifier) };
    },
  });

  app.post(certificatesPath, {
    config: { counterpart: 'POST /device_certificates' },
    schema: { tags, summary: 'Add a certificate to a device', description: '`cert`: the certificate (PEM or base64 of PEM); expired ones are refused.', params: DeviceParams, body: Type.Object({ cert: Type.String({ minLength: 1, maxLength: 65536 }) }), response: { 201: Data('The device certificate.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return reply.code(201).send({ data: await addDeviceCertificate(db, actor, product.id, request.params.identifier, request.body.cert) });
    },
  });

  app.get(`${certificatesPath}/:serial`, {
    config: { counterpart: 'GET /device_certificates/:prn' },
    schema: { tags, summary: "Get a device's certificate by serial", description: 'One certificate.', params: Type.Object({ ...DeviceParams.properties, serial: Serial }), response: { 200: Data('The device certificate.'), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      return { data: await deviceCertificateWire(db, actor, product.id, request.params.identifier, request.params.serial) };
    },
  });

  app.delete(`${certificatesPath}/:serial`, {
    config: { counterpart: 'DELETE /device_certificates/:prn' },
    schema: { tags, summary: "Delete a device's certificate by serial", description: 'As `DELETE /device_certificates/{prn}`.', params: Type.Object({ ...DeviceParams.properties, serial: Serial }), response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const product = await requireProductNamed(db, actor, request.params.org_name, request.params.product_name);
      await deleteDeviceCertificateBySerial(db, actor, product.id, request.params.identifier, request.params.serial);
      return reply.code(204).send();
    },
  });
};
