/**
 * GET /events/stream: the organization's events as Server-Sent Events, for the web console's
 * live views. Documented in site/docs/canopy-core/reference/integration-management/events.mdx ("Live stream").
 *
 * Each message: `id:` the event prn, `data:` the event as GET /events lists it. A client that
 * reconnects with `Last-Event-ID` (or `?last_event_id=`, for clients that cannot set headers)
 * gets every matching event after that one, then live ones. The stream reads the events table
 * (stream-cursor.ts explains the late-commit window), so it holds nothing only in memory and
 * works the same with several server processes on one PostgreSQL and with embedded PGlite.
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { notFound, parameterError } from '../http/errors';
import { STANDARD_ERRORS } from '../http/schemas';
import { EVENT_FILTER_QUERY } from './filter-query';
import { eventToWire, type EventRow } from './service';
import { advance, parseLastEventId, pollAfter, startCursor } from './stream-cursor';
import { eventsAfter, STREAM_READ_LIMIT, streamConditions } from './stream-query';

/** How often a stream reads the table for new events. */
export const STREAM_POLL_MS = 1000;
/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const STREAM_KEEPALIVE_MS = 15_000;


/** One SSE message: JSON has no raw newlines, so `data` is one line. */
function sseMessage(row: EventRow): string {
  const wire = eventToWire(row);
  return `id: ${wire.prn}\ndata: ${JSON.stringify(wire)}\n\n`;
}

export const eventStreamRoutes: ContextRoutes = (app, { db, log }) => {
  const open = new Set<() => void>();
  // A stream never ends by itself: closing the server ends them, or close() would wait for ever.
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.get('/events/stream', {
    config: { role: 'read' },
    schema: {
      tags: ['events'],
      summary: 'Stream events live',
      description:
        'The organization\'s events as Server-Sent Events (`text/event-stream`), with the filters of `GET /events`. Each message has `id` = the event prn and `data` = the event as `GET /events` lists it. ' +
        'Reconnect with the `Last-Event-ID` header (or the `last_event_id` parameter) to receive every matching event after that one, then live ones. A comment line every 15 seconds keeps the connection open through proxies.',
      querystring: Type.Object({
        last_event_id: Type.Optional(Type.String({ maxLength: 200, description: 'Resume after this event prn (for clients that cannot send the Last-Event-ID header).' })),
        ...EVENT_FILTER_QUERY,
      }),
      headers: Type.Object({
        'last-event-id': Type.Optional(Type.String({ maxLength: 200, description: 'The prn of the last event received; the stream resumes after it.' })),
      }),
      response: {
        200: {
          description: 'A `text/event-stream`: `id: <event prn>` and `data: <event JSON>` per event, `: keep-alive` comments between.',
          content: { 'text/event-stream': { schema: Type.String() } },
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (request, reply) => {
      const { organizationId } = actorOf(request);
      const { last_event_id: lastEventIdParameter, ...filters } = request.query;
      const rawLastId = request.headers['last-event-id'] ?? lastEventIdParameter;
      const lastId = parseLastEventId(typeof rawLastId === 'string' ? rawLastId : undefined, organizationId);
      if (lastId.kind === 'invalid') throw parameterError('last_event_id', 'invalid_event_id');
      if (lastId.kind === 'other_organization') throw notFound('event', String(rawLastId));
      const conditions = streamConditions(organizationId, filters);

      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // nginx buffers responses unless told not to.
        'x-accel-buffering': 'no',
      });
      // HEAD (Fastify adds it beside GET) has no body to stream: its headers are the whole answer.
      if (request.method === 'HEAD') return void response.end();
      // The first bytes tell the client the stream is open before any event exists.
      response.write(': stream open\nretry: 2000\n\n');

      let cursor = startCursor(lastId.kind === 'resume' ? lastId.id : null, Date.now());
      let ended = false;
      let timer: NodeJS.Timeout | undefined;
      const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), STREAM_KEEPALIVE_MS);
      const end = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        clearInterval(keepAlive);
        open.delete(end);
        response.end();
      };
      open.add(end);
      request.raw.on('close', end);
      response.on('error', end);

      const poll = async () => {
        try {
          let after = pollAfter(cursor);
          for (;;) {
            const rows = await eventsAfter(db, conditions, after);
            if (ended) return;
            const step = advance(cursor, rows, rows.length < STREAM_READ_LIMIT, Date.now());
            cursor = step.cursor;
            if (step.fresh.length) {
              response.write(step.fresh.map(sseMessage).join(''));
            }
            if (rows.length < STREAM_READ_LIMIT) break;
            after = rows[rows.length - 1].id;
          }
        } catch (error) {
          // The client reconnects with its Last-Event-ID; nothing is lost by ending here.
          log.warn({ err: (error as Error).message }, 'event stream read failed; closing the stream');
          end();
          return;
        }
        if (!ended) timer = setTimeout(poll, STREAM_POLL_MS);
      };
      await poll();
    },
  });
};
