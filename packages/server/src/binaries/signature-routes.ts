import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Prn, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { BinarySignature } from './route-schemas';
import { createSignature, deleteSignature, getSignature, listSignatures } from './signatures';
import { signatureToWire } from './wire';

const SignatureParams = PrnParams('Resource name of the binary signature.');

export const signatureRoutes: ContextRoutes = (app, { db }) => {
  app.post('/binary_signatures', {
    config: { role: 'write' },
    schema: {
      tags: ['binaries'],
      summary: 'Sign a binary',
      description:
        'Attaches an Ed25519 signature over the ASCII lowercase hex hash, checked against the signing key (422 `invalid_signature` otherwise). ' +
        'The binary must be signable or signed (409 `binary_not_signable`); the first signature makes it signed.',
      body: Type.Object({
        binary_prn: Prn('The binary.'),
        signing_key_prn: Prn('A signing key of the organization.'),
        signature: Type.String({ pattern: '^[0-9a-fA-F]{128}$', description: '128 hex characters (any case).' }),
      }),
      response: { 201: single('binary_signature', BinarySignature), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ binary_signature: signatureToWire(await createSignature(db, actorOf(request), request.body)) }),
  });

  app.get('/binary_signatures', {
    config: { role: 'read' },
    schema: {
      tags: ['binaries'],
      summary: 'List binary signatures',
      description: 'Search fields: binary_prn, signing_key_prn, signature (`:`), inserted_at, updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('binary_signatures', BinarySignature), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listSignatures(db, actorOf(request), request.query);
      return { binary_signatures: page.items.map(signatureToWire), next_page: page.nextPage };
    },
  });

  app.get('/binary_signatures/:prn', {
    config: { role: 'read' },
    schema: { tags: ['binaries'], summary: 'Get a binary signature', description: 'One signature by its prn.', params: SignatureParams, response: { 200: single('binary_signature', BinarySignature), ...STANDARD_ERRORS } },
    handler: async (request) => ({ binary_signature: signatureToWire(await getSignature(db, actorOf(request), request.params.prn)) }),
  });

  app.delete('/binary_signatures/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['binaries'],
      summary: 'Remove a binary signature',
      description: 'Removing the last signature of a signed binary makes it signable again.',
      params: SignatureParams,
      response: { 204: NoContent('Removed.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteSignature(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
