import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Name, NoContent, PrnParams, ResourceFields, single, STANDARD_ERRORS } from '../http/schemas';
import { createSigningKey, deleteSigningKey, getSigningKey, listSigningKeys, signingKeyToWire, updateSigningKey } from './service';

const KEY_EXAMPLE = 'yGmBCPyqMd/a6cWnu7c1lsTMxxTT1P+6AsxT7B8cd6U=';

const Value = (description: string) =>
  Type.String({ minLength: 1, maxLength: 256, description, examples: [KEY_EXAMPLE] });

const SigningKey = Type.Object({
  ...ResourceFields,
  name: Name('Name of the key, 1 to 128 characters.'),
  value: Type.String({ description: 'Standard base64 of the raw 32-byte Ed25519 public key.', examples: [KEY_EXAMPLE] }),
  keyid: Type.String({ description: 'Lowercase hex SHA-256 of the raw public key.', examples: ['3f9c1d0e7b2a4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5'] }),
});

const SigningKeyParams = PrnParams('Resource name of the signing key.');
const TAGS = ['signing_keys'];

export const signingKeyRoutes: ContextRoutes = (app, { db }) => {
  app.post('/signing_keys', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Create a signing key',
      description:
        'Registers an Ed25519 public key that binary signatures are checked against. `value` is the standard base64 of the raw 32-byte key, or a PEM SPKI (stored as the base64 form). 422 `value` `invalid_key` when it is no Ed25519 public key, `taken` when the organization already has it.',
      body: Type.Object({ name: Name('Name of the key.'), value: Value('The public key: base64 of the raw 32 bytes, or PEM SPKI.') }),
      response: { 201: single('signing_key', SigningKey), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ signing_key: signingKeyToWire(await createSigningKey(db, actorOf(request), request.body)) }),
  });

  app.get('/signing_keys', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'List signing keys',
      description: 'Search fields: name (`:` `-` `~`), keyid (`:`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('signing_keys', SigningKey), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listSigningKeys(db, actorOf(request), request.query);
      return { signing_keys: page.items.map(signingKeyToWire), next_page: page.nextPage };
    },
  });

  app.get('/signing_keys/:prn', {
    config: { role: 'read' },
    schema: { tags: TAGS, summary: 'Get a signing key', description: 'One signing key by its prn.', params: SigningKeyParams, response: { 200: single('signing_key', SigningKey), ...STANDARD_ERRORS } },
    handler: async (request) => ({ signing_key: signingKeyToWire(await getSigningKey(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/signing_keys/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Rename a signing key',
      description: 'Only the name changes. `value` may be sent back unchanged; a different key is 422 `value` `immutable` (register it as a new signing key).',
      params: SigningKeyParams,
      body: Type.Object({ name: Type.Optional(Name()), value: Type.Optional(Value('The key already stored, in either form.')) }),
      response: { 200: single('signing_key', SigningKey), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ signing_key: signingKeyToWire(await updateSigningKey(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/signing_keys/:prn', {
    config: { role: 'write' },
    schema: { tags: TAGS, summary: 'Delete a signing key', description: 'Removes the key.', params: SigningKeyParams, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteSigningKey(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
