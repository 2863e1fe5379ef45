import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Name, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { decideReclaim, getReclaim, listReclaims, reclaimToWire } from './reclaim-service';
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
const ReclaimParams = PrnParams('Resource name of the device reclaim.');

const DeviceReclaim = Type.Object({
  ...ResourceFields,
  device_prn: Prn('The device whose identifier was claimed with a new key.'),
  claim_token_prn: Nullable(Prn('The token presented, or null once deleted.')),
  public_key: Type.String({ description: 'The new key (SPKI PEM).' }),
  public_key_fingerprint: Type.String({ description: 'Lowercase hex SHA-256 of the key (SPKI DER).' }),
  state: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
});

export const claimTokenRoutes: ContextRoutes = (app, { db, secrets }) => {
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

  app.get('/device_reclaims', {
    config: { role: 'admin' },
    schema: {
      tags: ['claim tokens'],
      summary: 'List device reclaims',
      description: 'Claims of a known identifier with a new key. Search fields: state (`:`), inserted_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('device_reclaims', DeviceReclaim), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listReclaims(db, actorOf(request), request.query);
      return { device_reclaims: page.items.map(reclaimToWire), next_page: page.nextPage };
    },
  });

  app.get('/device_reclaims/:prn', {
    config: { role: 'admin' },
    schema: { tags: ['claim tokens'], summary: 'Get a device reclaim', description: 'One reclaim.', params: ReclaimParams, response: { 200: single('device_reclaim', DeviceReclaim), ...STANDARD_ERRORS } },
    handler: async (request) => ({ device_reclaim: reclaimToWire(await getReclaim(db, actorOf(request), request.params.prn)) }),
  });

  for (const [action, decision] of [['approve', 'approved'], ['reject', 'rejected']] as const) {
    app.post(`/device_reclaims/:prn/${action}`, {
      config: { role: 'admin' },
      schema: {
        tags: ['claim tokens'],
        summary: action === 'approve' ? 'Approve a device reclaim' : 'Reject a device reclaim',
        description:
          action === 'approve'
            ? "Issues and registers a certificate for the new key; the device's next claim with it is answered with the certificate. Only a pending reclaim (409 `invalid_state_transition`)."
            : 'The device is never enrolled with that key. Only a pending reclaim (409 `invalid_state_transition`).',
        params: ReclaimParams,
        response: { 200: single('device_reclaim', DeviceReclaim), ...STANDARD_ERRORS },
      },
      handler: async (request) => ({ device_reclaim: reclaimToWire(await decideReclaim(db, secrets, actorOf(request), request.params.prn, decision)) }),
    });
  }
};
