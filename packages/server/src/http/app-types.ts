import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Platform } from '../platform';

/** The admin API's Fastify instance, typed by its TypeBox route schemas. */
export type AdminApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What each context's routes.ts exports: it adds its routes to the admin API. */
export type ContextRoutes = (app: AdminApp, platform: Platform) => Promise<void> | void;
