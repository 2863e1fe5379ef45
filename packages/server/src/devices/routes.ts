import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { Description, list, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { sendJsonItem, sendJsonPage } from '../read-path/json-reply';
import type { WireSource } from '../read-path/owned-json';
import { countDevices, ONLINE_WINDOW_SECONDS } from './counts';
import { createDevice, deleteDevice, deviceToWire, getDeviceJson, listDevicesJson, updateDevice } from './service';
import { devices } from './schema';
import { Archived, CohortPrn, Device, DeviceDescription, Identifier, ProductPrn, Quarantined, Tags, Target } from './api-schemas';

/** The fields create and PATCH share; all optional here, create makes two of them required. */
const EditableFields = {
  identifier: Type.Optional(Identifier),
  product_prn: Type.Optional(ProductPrn('The product, in the same organization and not archived.')),
  cohort_prn: Type.Optional(CohortPrn('A cohort of the device\'s product, or null.')),
  description: Type.Optional(DeviceDescription),
  quarantined: Type.Optional(Quarantined),
  archived: Type.Optional(Archived),
  tags: Type.Optional(Tags),
  target: Type.Optional(Target),
};

/**
 * Read routes send the Device JSON the database keeps in devices.wire_json (devices/schema.ts),
 * byte for byte what this schema's serialiser writes from deviceToWire.
 */
export const DEVICE_JSON: WireSource = { table: devices, type: 'device', json: sql<string>`${devices.wireJson}` };

const DeviceParams = PrnParams('Resource name of the device.');
const TAGS = ['devices'];

export const deviceRoutes: ContextRoutes = (app, { db }) => {
  app.post('/devices', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Create a device',
      description:
        '422 `identifier` `taken` when the organization already has the identifier; `product_prn` `not_found` or `archived` (no devices are added to an archived product); `cohort_prn` `not_found` or `not_in_product`.',
      body: Type.Object({ ...EditableFields, identifier: Identifier, product_prn: ProductPrn('The product, in the same organization and not archived.') }),
      response: { 201: single('device', Device), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ device: deviceToWire(await createDevice(db, actorOf(request), request.body)) }),
  });

  app.get('/devices', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'List devices',
      description:
        "Search fields: identifier, description and target (`:` `-` `~`), tags (`:` has the tag), quarantined and archived (`:`), product_prn and cohort_prn (`:`), reported_release_prn (`:` `-`), online (`:` true or false: communicated within the last 5 minutes), update_status (`:` the status of the device's latest update report, or null), inserted_at, updated_at and last_connected_at (`:` `<` `<=` `>` `>=`). Example: `tags:'east' and quarantined:false`.",
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('devices', Device), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => sendJsonPage(reply, 'devices', await listDevicesJson(db, DEVICE_JSON, actorOf(request), request.query)),
  });

  app.get('/devices/counts', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'Count devices by state',
      description: `How many of the devices that \`search\` selects (the search language of GET /devices; absent: all) are quarantined, archived, online (communicated within the last ${ONLINE_WINDOW_SECONDS / 60} minutes), never connected, and have reported a release.`,
      querystring: Type.Object({ search: LIST_QUERY_PROPERTIES.search }),
      response: {
        200: Type.Object(
          {
            device_counts: Type.Object({
              total: Type.Integer({ description: 'Devices the search selects.' }),
              quarantined: Type.Integer({ description: 'Of those, quarantined.' }),
              archived: Type.Integer({ description: 'Of those, archived.' }),
              online: Type.Integer({ description: `Of those, communicated within the last ${ONLINE_WINDOW_SECONDS / 60} minutes.` }),
              never_connected: Type.Integer({ description: 'Of those, never connected.' }),
              reported_release: Type.Integer({ description: 'Of those, have reported running a release.' }),
            }),
          },
          { description: 'The counts.' },
        ),
        ...STANDARD_ERRORS,
      },
    },
    handler: async (request) => ({ device_counts: await countDevices(db, actorOf(request), request.query.search) }),
  });

  app.get('/devices/:prn', {
    config: { role: 'read' },
    schema: { tags: TAGS, summary: 'Get a device', description: 'One device by its prn.', params: DeviceParams, response: { 200: single('device', Device), ...STANDARD_ERRORS } },
    handler: async (request, reply) => sendJsonItem(reply, 'device', await getDeviceJson(db, DEVICE_JSON, actorOf(request), request.params.prn)),
  });

  app.patch('/devices/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Update a device',
      description:
        'Changes the given fields and records a `device.updated` event naming them (none when nothing changed). Moving to another product needs a `cohort_prn` of that product (or null). Unarchiving a device of an archived product is 422 `archived` `product_archived`. The last_connected_at and reported_* fields come from the device and are ignored here.',
      params: DeviceParams,
      body: Type.Object(EditableFields),
      response: { 200: single('device', Device), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ device: deviceToWire(await updateDevice(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/devices/:prn', {
    config: { role: 'write' },
    schema: { tags: TAGS, summary: 'Delete a device', description: 'Removes the device; its events stay.', params: DeviceParams, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteDevice(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
