import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { Description, list, Name, NoContent, Nullable, Prn, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { BundleOverride, OverrideDevice } from './api-schemas';
import {
  addOverrideDevice,
  bundleOverrideDeviceToWire,
  bundleOverrideToWire,
  createBundleOverride,
  deleteBundleOverride,
  getBundleOverride,
  listBundleOverrides,
  listOverrideDevices,
  removeOverrideDevice,
  updateBundleOverride,
} from './service';

const DateTimeInput = (description: string) => Type.String({ description, examples: ['2025-06-11T05:04:10Z'] });
const fields = {
  name: Name('Override name.'),
  description: Type.Optional(Nullable(Description())),
  bundle_prn: Prn('The bundle to pin.'),
  starts_at: DateTimeInput('RFC 3339 date-time; the override is active from here.'),
  ends_at: Type.Optional(Nullable(DateTimeInput('RFC 3339 date-time after starts_at; active until here. Absent or null: the override has no end.'))),
};

const Params = PrnParams('Resource name of the bundle override.');
const DeviceParams = Type.Object({ prn: Prn('Resource name of the bundle override.'), device_prn: Prn('Resource name of the device.') });
const tags = ['bundle_overrides'];

export const bundleOverrideRoutes: ContextRoutes = (app, { db }) => {
  app.post('/bundle_overrides', {
    config: { role: 'write' },
    schema: {
      tags,
      summary: 'Create a bundle override',
      description: 'While active (starts_at <= now < ends_at) the override beats any release for its devices.',
      body: Type.Object(fields),
      response: { 201: single('bundle_override', BundleOverride), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ bundle_override: bundleOverrideToWire(await createBundleOverride(db, actorOf(request), request.body)) }),
  });

  app.get('/bundle_overrides', {
    config: { role: 'read' },
    schema: {
      tags,
      summary: 'List bundle overrides',
      description: 'Search fields: name, description (`:` `-` `~`), bundle_prn (`:`), starts_at, ends_at, inserted_at, updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('bundle_overrides', BundleOverride), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listBundleOverrides(db, actorOf(request), request.query);
      return { bundle_overrides: page.items.map(bundleOverrideToWire), next_page: page.nextPage };
    },
  });

  app.get('/bundle_overrides/:prn', {
    config: { role: 'read' },
    schema: { tags, summary: 'Get a bundle override', description: 'One override by its prn.', params: Params, response: { 200: single('bundle_override', BundleOverride), ...STANDARD_ERRORS } },
    handler: async (request) => ({ bundle_override: bundleOverrideToWire(await getBundleOverride(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/bundle_overrides/:prn', {
    config: { role: 'write' },
    schema: {
      tags,
      summary: 'Update a bundle override',
      description: 'A new window that would overlap another override of one of its devices is 409 `bundle_override_overlap`.',
      params: Params,
      body: Type.Partial(Type.Object(fields)),
      response: { 200: single('bundle_override', BundleOverride), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ bundle_override: bundleOverrideToWire(await updateBundleOverride(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/bundle_overrides/:prn', {
    config: { role: 'write' },
    schema: { tags, summary: 'Delete a bundle override', description: 'Its devices go back to their releases.', params: Params, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteBundleOverride(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });

  app.post('/bundle_overrides/:prn/devices', {
    config: { role: 'write' },
    schema: {
      tags,
      summary: 'Add a device to a bundle override',
      description: 'A device may not be in two overrides whose windows overlap: 409 `bundle_override_overlap`. Adding it twice: 409 `device_already_in_bundle_override`.',
      params: Params,
      body: Type.Object({ device_prn: Prn('The device to add.') }),
      response: { 201: single('device', OverrideDevice), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) =>
      reply.code(201).send({ device: bundleOverrideDeviceToWire(await addOverrideDevice(db, actorOf(request), request.params.prn, request.body.device_prn)) }),
  });

  app.get('/bundle_overrides/:prn/devices', {
    config: { role: 'read' },
    schema: {
      tags,
      summary: "List a bundle override's devices",
      description: 'Newest first by default.',
      params: Params,
      querystring: Type.Object({ limit: LIST_QUERY_PROPERTIES.limit, order: LIST_QUERY_PROPERTIES.order, page: LIST_QUERY_PROPERTIES.page }),
      response: { 200: list('devices', OverrideDevice), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listOverrideDevices(db, actorOf(request), request.params.prn, request.query);
      return { devices: page.items.map(bundleOverrideDeviceToWire), next_page: page.nextPage };
    },
  });

  app.delete('/bundle_overrides/:prn/devices/:device_prn', {
    config: { role: 'write' },
    schema: { tags, summary: 'Remove a device from a bundle override', description: 'The device goes back to its releases.', params: DeviceParams, response: { 204: NoContent('Removed.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await removeOverrideDevice(db, actorOf(request), request.params.prn, request.params.device_prn);
      return reply.code(204).send();
    },
  });
};
