import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Nullable, Prn, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { EVENT_FILTER_QUERY } from './filter-query';
import { eventToWire, listEvents } from './service';

const Event = Type.Object({
  version: Type.Literal(1),
  prn: Prn('Resource name of the event.'),
  type: Type.String({ description: 'device, webhook, api_key, tunnel, user, release, or audit (an admin write: see the Events reference, "Audit trail")', examples: ['device'] }),
  inserted_at: Timestamp('When it happened.'),
  data: Type.Object(
    { type: Type.String({ description: 'The subtype, e.g. release_changed.', examples: ['release_changed'] }), data: Type.Record(Type.String(), Type.Unknown()) },
    { description: 'The subtype and its payload.' },
  ),
  actor_prn: Nullable(Type.String({ description: 'Who caused it: a user, an API key or a device.' })),
  resource_prn: Nullable(Type.String({ description: 'What it concerns.' })),
});

export const eventRoutes: ContextRoutes = (app, { db }) => {
  app.get('/events', {
    config: { role: 'read' },
    schema: {
      tags: ['events'],
      summary: 'List events',
      description: 'The organization\'s event log, newest first by default, filtered by time, actor, resource, type and subtype.',
      querystring: Type.Object({
        ...LIST_QUERY_PROPERTIES,
        ...EVENT_FILTER_QUERY,
      }),
      response: { 200: list('events', Event), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listEvents(db, actorOf(request).organizationId, request.query);
      return { events: page.items.map(eventToWire), next_page: page.nextPage };
    },
  });
};
