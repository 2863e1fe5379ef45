import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { ErrorBody, Nullable, Prn, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { toRfc3339 } from '../core/time';
import { consumeShell, createShell, DEFAULT_SHELL_TTL, SHELL_URL_PATH, shellToWire } from './service';
import { shellSockets } from './shell-socket';

/** The console's terminal page; the token goes in the fragment, which browsers never send. */
export const SHELL_PAGE_PATH = '/console/shell';

/** A browser navigating (it asks for HTML first), rather than an API client. */
const wantsPage = (accept: string | undefined) => !!accept && /\btext\/html\b/.test(accept.split(',')[0]);

const Shell = Type.Object(
  {
    prn: Prn('Resource name of the shell.'),
    device_prn: Prn('The device the shell opens on.'),
    url: Type.String({ description: 'One-time URL: it works once, and never after expires_at.' }),
    expires_at: Timestamp('When the URL stops working if unused.'),
    inserted_at: Timestamp('When it was created.'),
  },
  { description: 'A one-time web console shell URL.' },
);

export const webConsoleRoutes: ContextRoutes = (app, platform) => {
  // The terminal's WebSocket (shell-socket.ts) on the same server and port as the API.
  const sockets = shellSockets(platform);
  app.server.on('upgrade', (request, socket, head) => {
    if (!sockets.handleUpgrade(request, socket, head)) socket.destroy();
  });
  app.addHook('preClose', async () => sockets.close());

  app.post('/web-console-shells', {
    config: { role: 'write' },
    schema: {
      tags: ['web console'],
      summary: 'Create a web console shell URL',
      description: 'Names the device by `device_prn`, or by `device_identifier` with `organization_prn`. The answer (not wrapped) holds the only copy of the URL.',
      body: Type.Object({
        device_prn: Type.Optional(Nullable(Prn('The device.'))),
        device_identifier: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256, description: "The device's identifier, with organization_prn." }))),
        organization_prn: Type.Optional(Nullable(Prn('The organization of device_identifier.', 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70'))),
        ttl: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400, default: DEFAULT_SHELL_TTL, description: 'Seconds the URL stays usable, 0 to 86400.' })),
      }),
      // Unwrapped, as the public API answers it (site/docs/.../compatibility.md): clients read
      // `url` and `expires_at` at the top level; the other fields are Canopy's additions.
      response: { 201: Shell, ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const { row, url } = await createShell(platform.db, actorOf(request), platform.config.publicUrl, request.body);
      return reply.code(201).send(shellToWire(row, url));
    },
  });

  app.get(`${SHELL_URL_PATH}/:token`, {
    // The URL is the credential: whoever holds it may use it, once.
    config: { public: true },
    schema: {
      tags: ['web console'],
      summary: 'Open a web console shell (the one-time URL)',
      description:
        'A browser (`Accept: text/html`) is sent (303) to the console\'s terminal page, which opens the session over the WebSocket `GET /web-console/shells/{token}/socket`: that socket is the one use. Any other client uses the URL up at once and gets the session below. The first use before expiry wins; every later one answers 410 (`web_console_shell_used` or `web_console_shell_expired`).',
      'x-public': true,
      params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 128, description: 'The token from the url; the url itself is the credential.' }) }),
      response: {
        303: Type.Null({ description: 'A browser: sent to the console\'s terminal page, the token in the fragment (`/console/shell#<token>`). Nothing is used up yet.' }),
        200: single('web_console_session', Type.Object({ shell_prn: Prn('The shell.'), device_prn: Prn('The device.'), opened_at: Timestamp('When this use consumed the URL.') })),
        404: STANDARD_ERRORS[404],
        410: { ...ErrorBody, description: 'The URL was used already or has expired.' },
      },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      if (wantsPage(request.headers.accept)) return reply.code(303).header('location', `${SHELL_PAGE_PATH}#${encodeURIComponent(request.params.token)}`).send(null);
      const row = await consumeShell(platform.db, request.params.token);
      const { prn, device_prn } = shellToWire(row, '');
      // consumeShell answers only the row it consumed, so consumed_at is set.
      return { web_console_session: { shell_prn: prn, device_prn, opened_at: toRfc3339(row.consumedAt!) } };
    },
  });
};
