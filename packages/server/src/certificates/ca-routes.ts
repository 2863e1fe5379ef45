/** Admin routes of CA certificates and their verification codes; all need the admin role. */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { Description, list, Name, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { caCertificateToWire, deleteCaCertificate, getCaCertificate, listCaCertificates, registerCaCertificate, updateCaCertificate } from './ca-service';
import { createVerificationCode } from './verification-codes';

const CertificateText = (description: string) =>
  Type.String({ minLength: 1, maxLength: 65_536, description, examples: ['LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJ...'] });

const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, description: 'Tags given to provisioned devices.', examples: [['field', 'v2']] });

const JitpInput = Type.Object(
  {
    description: Description('Description given to provisioned devices.'),
    tags: Tags,
    product_name: Name('Name of the product provisioned devices join; it must exist.'),
    cohort_prn: Type.Optional(Nullable(Prn('Cohort (of that product) provisioned devices join.'))),
    target: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'Target triplet of provisioned devices.', examples: ['aarch64-unknown-linux-gnu'] }))),
  },
  { description: 'Just-in-time provisioning: an unknown device whose certificate this CA issued is created from these settings, its identifier being the certificate CN.' },
);

const Jitp = Type.Object({
  description: Type.String(),
  tags: Type.Array(Type.String()),
  product_name: Type.String(),
  cohort_prn: Nullable(Prn('Cohort of provisioned devices.')),
  target: Nullable(Type.String()),
});

const CaCertificate = Type.Object({
  ...ResourceFields,
  serial: Type.String({ description: 'Serial number in decimal.', examples: ['1044527617342416953466262312532390283731216012'] }),
  description: Nullable(Type.String()),
  not_before: Timestamp('Start of validity.'),
  not_after: Timestamp('End of validity.'),
  jitp: Nullable(Jitp, { description: 'Just-in-time provisioning settings, or null when disabled.' }),
});

const CaParams = PrnParams('Resource name of the CA certificate.');

const UpdateBody = Type.Object({
  description: Type.Optional(Nullable(Description())),
  jitp: Type.Optional(Nullable(JitpInput)),
});

export const caCertificateRoutes: ContextRoutes = (app, { db }) => {
  const admin = { role: 'admin' as const };

  app.post('/ca_certificates/verification_codes', {
    config: admin,
    schema: {
      tags: ['ca_certificates'],
      summary: 'Get a CA verification code',
      description: 'A code valid for one week, usable once: sign a certificate whose CN is this code with the CA key, and send it as `verification_certificate` when registering the CA.',
      response: { 201: Type.Object({ verification_code: Type.String({ examples: ['9F86D081884C7D659A2FEAA0C55AD015'] }) }, { description: 'The new code.' }), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ verification_code: await createVerificationCode(db, actorOf(request).organizationId) }),
  });

  app.post('/ca_certificates', {
    config: admin,
    schema: {
      tags: ['ca_certificates'],
      summary: 'Register a CA certificate',
      description:
        'Both certificates are base64 of PEM. Checks: the CA is valid now and is a CA; the verification certificate is signed by it and its CN is a live, unused verification code of this organization. ' +
        'Failures answer 422 naming the field (`ca_expired`, `not_a_ca`, `verification_not_signed_by_ca`, `verification_code_mismatch` ...).',
      body: Type.Object({
        certificate: CertificateText('The CA certificate, base64 of PEM.'),
        verification_certificate: CertificateText('Certificate with CN = verification code, signed by the CA, base64 of PEM.'),
        description: Type.Optional(Nullable(Description())),
        jitp: Type.Optional(Nullable(JitpInput)),
      }),
      response: { 201: single('ca_certificate', CaCertificate), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ ca_certificate: caCertificateToWire(await registerCaCertificate(db, actorOf(request), request.body)) }),
  });

  app.get('/ca_certificates', {
    config: admin,
    schema: {
      tags: ['ca_certificates'],
      summary: 'List CA certificates',
      description: 'Search fields: serial (`:`), description (`:` `-` `~`), not_after and inserted_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('ca_certificates', CaCertificate), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listCaCertificates(db, actorOf(request), request.query);
      return { ca_certificates: page.items.map(caCertificateToWire), next_page: page.nextPage };
    },
  });

  app.get('/ca_certificates/:prn', {
    config: admin,
    schema: { tags: ['ca_certificates'], summary: 'Get a CA certificate', description: 'One CA certificate by its prn.', params: CaParams, response: { 200: single('ca_certificate', CaCertificate), ...STANDARD_ERRORS } },
    handler: async (request) => ({ ca_certificate: caCertificateToWire(await getCaCertificate(db, actorOf(request), request.params.prn)) }),
  });

  for (const method of ['put', 'patch'] as const) {
    app[method]('/ca_certificates/:prn', {
      config: admin,
      schema: {
        tags: ['ca_certificates'],
        summary: `Update a CA certificate (${method.toUpperCase()})`,
        description: 'Changes the description and JITP settings; only the fields sent change. `jitp: null` turns provisioning off.',
        params: CaParams,
        body: UpdateBody,
        response: { 200: single('ca_certificate', CaCertificate), ...STANDARD_ERRORS },
      },
      handler: async (request) => ({ ca_certificate: caCertificateToWire(await updateCaCertificate(db, actorOf(request), request.params.prn, request.body)) }),
    });
  }

  app.delete('/ca_certificates/:prn', {
    config: admin,
    schema: {
      tags: ['ca_certificates'],
      summary: 'Delete a CA certificate',
      description: 'Device certificates that chain only to this CA stop authenticating at once.',
      params: CaParams,
      response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteCaCertificate(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
