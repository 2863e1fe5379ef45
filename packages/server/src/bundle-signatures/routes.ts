import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Nullable, Prn, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { createBundleSignature, deleteBundleSignature, getBundleSignature, listBundleSignatures, listSignaturesOfBundle } from './service';
import { BundleSignature, bundleSignatureToWire } from './wire';

const SignatureParams = PrnParams('Resource name of the bundle signature.');
const SEARCH = 'Search fields: bundle_prn, signing_key_prn, signature (`:`), inserted_at, updated_at (`:` `<` `<=` `>` `>=`).';

export const bundleSignatureRoutes: ContextRoutes = (app, { db }) => {
  app.post('/bundle_signatures', {
    config: { role: 'write' },
    schema: {
      tags: ['bundles'],
      summary: 'Sign a bundle',
      description:
        "Attaches an Ed25519 signature over the canonical message of the bundle's binaries for `target` (every target when absent or null), " +
        'checked against the signing key (422 `invalid_signature` otherwise). Every artifact version of the bundle must resolve to a binary ' +
        'whose bytes are verified (signable or signed), else 409 `bundle_not_signable`. One signature per bundle, key and target (422 `taken`).',
      body: Type.Object({
        bundle_prn: Prn('The bundle.'),
        signing_key_prn: Prn('A signing key of the organization.'),
        signature: Type.String({ pattern: '^[0-9a-fA-F]{128}$', description: '128 hex characters (any case).' }),
        target: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'The target whose binaries are signed; absent or null: every target.' }))),
      }),
      response: { 201: single('bundle_signature', BundleSignature), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ bundle_signature: bundleSignatureToWire(await createBundleSignature(db, actorOf(request), request.body)) }),
  });

  app.get('/bundle_signatures', {
    config: { role: 'read' },
    schema: {
      tags: ['bundles'],
      summary: 'List bundle signatures',
      description: SEARCH,
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('bundle_signatures', BundleSignature), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listBundleSignatures(db, actorOf(request), request.query);
      return { bundle_signatures: page.items.map(bundleSignatureToWire), next_page: page.nextPage };
    },
  });

  app.get('/bundles/:prn/signatures', {
    config: { role: 'read' },
    schema: {
      tags: ['bundles'],
      summary: "List a bundle's signatures",
      description: `The signatures of one bundle. ${SEARCH}`,
      params: PrnParams('Resource name of the bundle.'),
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('bundle_signatures', BundleSignature), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listSignaturesOfBundle(db, actorOf(request), request.params.prn, request.query);
      return { bundle_signatures: page.items.map(bundleSignatureToWire), next_page: page.nextPage };
    },
  });

  app.get('/bundle_signatures/:prn', {
    config: { role: 'read' },
    schema: { tags: ['bundles'], summary: 'Get a bundle signature', description: 'One signature by its prn.', params: SignatureParams, response: { 200: single('bundle_signature', BundleSignature), ...STANDARD_ERRORS } },
    handler: async (request) => ({ bundle_signature: bundleSignatureToWire(await getBundleSignature(db, actorOf(request), request.params.prn)) }),
  });

  app.delete('/bundle_signatures/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['bundles'],
      summary: 'Remove a bundle signature',
      description: 'Devices stop receiving it at their next update check.',
      params: SignatureParams,
      response: { 204: NoContent('Removed.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteBundleSignature(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
