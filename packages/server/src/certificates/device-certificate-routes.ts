/** Admin routes of device certificates. */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { createDeviceCertificate, deleteDeviceCertificate, deviceCertificateToWire, getDeviceCertificate, listDeviceCertificates } from './device-certificate-service';

const DeviceCertificate = Type.Object({
  ...ResourceFields,
  device_prn: Prn('The device this certificate authenticates.'),
  serial: Type.String({ description: 'Serial number in decimal.' }),
  fingerprint: Type.String({ pattern: '^[0-9A-F]{64}$', description: 'SHA-256 of the DER, 64 upper-case hex characters.' }),
  authority_key_identifier: Nullable(Type.String({ description: 'Upper-case hex key id of the issuing CA, when the certificate names one.' })),
  not_before: Timestamp('Start of validity.'),
  not_after: Timestamp('End of validity.'),
});

const Params = PrnParams('Resource name of the device certificate.');

export const deviceCertificateRoutes: ContextRoutes = (app, { db }) => {
  app.post('/device_certificates', {
    config: { role: 'write' },
    schema: {
      tags: ['device_certificates'],
      summary: 'Register a device certificate',
      description:
        'Base64 of PEM: the device certificate, followed by any intermediates up to a CA certificate registered by your organization (only the first is stored). ' +
        'A certificate that does not chain to one of your CAs, or is registered in another organization, is 422 `unknown_ca` alike; one your organization registered already is 422 `taken`; an expired one 422 `expired`. ' +
        'A device may hold several live certificates, so certificates can be rotated without downtime.',
      body: Type.Object({
        device_prn: Prn('The device.'),
        certificate: Type.String({ minLength: 1, maxLength: 65_536, description: 'The certificate, base64 of PEM, optionally followed by its intermediates.' }),
      }),
      response: { 201: single('device_certificate', DeviceCertificate), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ device_certificate: deviceCertificateToWire(await createDeviceCertificate(db, actorOf(request), request.body)) }),
  });

  app.get('/device_certificates', {
    config: { role: 'read' },
    schema: {
      tags: ['device_certificates'],
      summary: 'List device certificates',
      description: 'Optionally only those of one device (`device_prn`).',
      querystring: Type.Object({ ...LIST_QUERY_PROPERTIES, device_prn: Type.Optional(Prn('Only the certificates of this device.')) }),
      response: { 200: list('device_certificates', DeviceCertificate), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listDeviceCertificates(db, actorOf(request), request.query);
      return { device_certificates: page.items.map(deviceCertificateToWire), next_page: page.nextPage };
    },
  });

  app.get('/device_certificates/:prn', {
    config: { role: 'read' },
    schema: { tags: ['device_certificates'], summary: 'Get a device certificate', description: 'One device certificate by its prn.', params: Params, response: { 200: single('device_certificate', DeviceCertificate), ...STANDARD_ERRORS } },
    handler: async (request) => ({ device_certificate: deviceCertificateToWire(await getDeviceCertificate(db, actorOf(request), request.params.prn)) }),
  });

  app.delete('/device_certificates/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['device_certificates'],
      summary: 'Delete a device certificate',
      description: 'The certificate stops authenticating new connections at once.',
      params: Params,
      response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteDeviceCertificate(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
