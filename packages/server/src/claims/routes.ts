import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Name, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { claimTokenToWire, createClaimToken, getClaimToken, listClaimTokens, revokeClaimToken } from './token-service';

const Tags = Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, description: 'Tags a claimed device gets, or null.' }));

const ClaimToken = Type.Object({
  ...ResourceFields,
  name: Nullable(Name()),
  max_uses: Type.Integer({ description: 'How many devices may enrol with it.' }),
  uses: Type.Integer({ description: 'How many have.' }),
  expires_at: Timestamp('After this, no device may enrol with it.'),
  revoked_at: Nullable(Timestamp('When it was revoked; null while not.')),
  state: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired'), Type.Literal('used_up')], { description: 'Whether a device may enrol with it now.' }),
  product_prn: Prn('The product claimed devices join.'),
  cohort_prn: Nullable(Prn('The cohort claimed devices join, or null.')),
  tags: Tags,
});

const Created = Type.Object({ ...ClaimToken.properties, secret: Type.String({ description: 'The token a device presents; shown only in this answer.' }) });
const TokenParams = PrnParams('Resource name of the claim token.');

export const claimTokenRoutes: ContextRoutes = (app, { db }) => {
  app.post('/claim_tokens', {
    config: { role: 'admin' },
    schema: {
      tags: ['claim tokens'],
      summary: 'Issue a claim token',
      description:
        'A secret (shown once in `secret`, stored hashed) with which up to `max_uses` devices with fresh keys enrol themselves before `expires_at` ' +
        '(`POST /device/claim` on the device API), joining `product_prn`, `cohort_prn` (a cohort of that product) and `tags`. `expires_at` in the past is 422 `in_past`.',
      body: Type.Object({
        name: Type.Optional(Nullable(Name())),
        max_uses: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'How many devices may enrol with it, 1 to 1,000,000.' }),
        expires_at: Type.String({ format: 'date-time', description: 'RFC 3339; must be in the future.' }),
        product_prn: Prn('The product claimed devices join.'),
        cohort_prn: Type.Optional(Nullable(Prn('A cohort of that product, or null.'))),
        tags: Type.Optional(Tags),
      }),
      response: { 201: single('claim_token', Created), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const { row, secret } = await createClaimToken(db, actorOf(request), request.body);
      return reply.code(201).send({ claim_token: { ...claimTokenToWire(row), secret } });
    },
  });

  app.get('/claim_tokens', {
    config: { role: 'admin' },
    schema: {
      tags: ['claim tokens'],
      summary: 'List claim tokens',
      description: 'Never their secrets. Search fields: name (`:` `-` `~`), product_prn, cohort_prn (`:`), expires_at, inserted_at, updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('claim_tokens', ClaimToken), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listClaimTokens(db, actorOf(request), request.query);
      return { claim_tokens: page.items.map((row) => claimTokenToWire(row)), next_page: page.nextPage };
    },
  });

  app.get('/claim_tokens/:prn', {
    config: { role: 'admin' },
    schema: { tags: ['claim tokens'], summary: 'Get a claim token', description: 'Never its secret.', params: TokenParams, response: { 200: single('claim_token', ClaimToken), ...STANDARD_ERRORS } },
    handler: async (request) => ({ claim_token: claimTokenToWire(await getClaimToken(db, actorOf(request), request.params.prn)) }),
  });

  app.delete('/claim_tokens/:prn', {
    config: { role: 'admin' },
    schema: {
      tags: ['claim tokens'],
      summary: 'Revoke a claim token',
      description: 'No device may enrol with it any more; the token stays listed (`state: revoked`) and devices it enrolled keep their certificates. Revoking twice is a no-op.',
      params: TokenParams,
      response: { 204: NoContent('Revoked.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await revokeClaimToken(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
