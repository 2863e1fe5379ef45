import type { TLSSocket } from 'node:tls';
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { ApiError } from '../http/errors';
import { Nullable, Prn, STANDARD_ERRORS } from '../http/schemas';
import { ClaimRefused, claimFromSocket } from './enrolment';
import { createFailureLimiter } from './failure-limiter';

const Answer = Type.Object({
  status: Type.Union([Type.Literal('enrolled'), Type.Literal('reclaim_pending')]),
  device_prn: Prn('The device.'),
  certificate: Nullable(Type.String({ description: "PEM of the device's certificate, signed by the claims CA; null while a reclaim is pending." })),
  ca_certificate: Nullable(Type.String({ description: 'PEM of the claims CA.' })),
  device_reclaim_prn: Nullable(Prn('The pending reclaim an admin must approve.')),
});

export const claimDeviceRoutes: ContextRoutes = (app, platform) => {
  const limiter = createFailureLimiter(platform.db);
  app.post('/device/claim', {
    config: { public: true },
    schema: {
      tags: ['claims'],
      summary: 'Enrol with a claim token',
      description:
        'The device presents a self-signed certificate for a fresh P-256 key as its TLS client certificate and sends a claim token and its identifier. ' +
        'A new identifier: 201 `enrolled` with a certificate for that key (signed by the organization\'s claims CA) to use from now on. ' +
        'A known identifier whose certificates hold that key: 200 `enrolled` with it. Another key: 202 `reclaim_pending` until an admin approves, then 200. ' +
        'A wrong token is 401 `invalid_claim_token`; a revoked, expired or used-up one 403 `claim_token_revoked|expired|used_up`; ' +
        '10 refusals in a minute from one address are 429 `too_many_claim_failures`.',
      body: Type.Object({
        token: Type.String({ minLength: 1, maxLength: 200, description: 'The claim token.' }),
        identifier: Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$', description: 'The device identifier (printable ASCII, no spaces); the certificate CN.' }),
      }),
      response: { 200: Answer, 201: Answer, 202: Answer, ...STANDARD_ERRORS },
    },
    // Without a client certificate there is nothing to enrol: 401 before the body is even read,
    // as every other device route answers a caller without one.
    onRequest: async (request) => {
      if (!(request.raw.socket as TLSSocket).getPeerX509Certificate?.()) throw new ApiError(401, [{ code: 'client_certificate_required', context: {} }]);
    },
    handler: async (request, reply) => {
      const reservation = await limiter.reserve(request.ip);
      if (reservation === null) throw new ApiError(429, [{ code: 'too_many_claim_failures', context: {} }]);
      let outcome;
      try {
        outcome = await claimFromSocket(platform.db, platform.secrets, request.raw.socket as TLSSocket, request.body);
      } catch (error) {
        // A refusal counts against the address; the server's own failure does not.
        if (!(error instanceof ClaimRefused)) await limiter.release(reservation);
        throw error;
      }
      await limiter.release(reservation);
      if (outcome.status === 'reclaim_pending') return reply.code(202).send({ status: outcome.status, device_prn: outcome.devicePrn, certificate: null, ca_certificate: null, device_reclaim_prn: outcome.reclaimPrn });
      return reply.code(outcome.created ? 201 : 200).send({ status: outcome.status, device_prn: outcome.devicePrn, certificate: outcome.certificatePem, ca_certificate: outcome.caCertificatePem, device_reclaim_prn: null });
    },
  });
};
