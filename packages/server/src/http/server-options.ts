/**
 * Fastify settings both APIs share: structured logs, request ids (taken from `x-request-id`
 * when a proxy set one, answered in the same header), strict JSON, the shared error shape.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { installErrorHandling } from './error-handler';
import { serializeRequest } from './log-redaction';
import { clientErrorHandler, frameworkErrors, MAX_PATH_PARAMETER_LENGTH } from './framework-errors';
import { checkPathParameters } from './path-parameters';
import { lazyRequestLogger } from './request-logger';
import { validatorCompiler } from './validation';

export const REQUEST_ID_HEADER = 'x-request-id';

export function baseServerOptions(logLevel: string, bodyLimit: number): FastifyServerOptions {
  return {
    logger: logLevel === 'silent' ? false : { level: logLevel, serializers: { req: serializeRequest as never } },
    requestIdHeader: REQUEST_ID_HEADER,
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit,
    // Clients send the resource's own prn inside PATCH bodies; unknown keys are ignored, and
    // a key like `__proto__` is dropped rather than parsed into an object's prototype.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    return503OnClosing: true,
    // Answers made before a route runs (bad URL, long parameter, unparseable request) in our error shape.
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    forceCloseConnections: 'idle',
  };
}

export function installCommonHooks(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  // A callback hook, not an async one: it runs on every request and needs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      checkPathParameters(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
