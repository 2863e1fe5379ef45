/**
 * The web console (packages/console) on the admin port at /console/: the same origin as the API,
 * so the browser needs no CORS. Files of the build are served as they are; any other path under
 * /console/ is the application's index.html, whose router draws the screen (deep links work).
 * Hashed assets (/console/assets/) never change, so browsers keep them for a year; index.html is
 * revalidated on each visit so a new build is picked up at once. The fleet view's own URL gets
 * fleet.html instead: index.html with the fleet screen's frame drawn in it and its first requests
 * started from it (packages/console/vite-plugins/fleet-screen-html.ts). Nothing is served when the build is missing
 * (`npm start` builds it first: scripts/ensure-console-build.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ContextRoutes } from '../http/app-types';
import { notFound } from '../http/errors';
import { consoleBuildPresent, consoleFileSender, resolveConsoleFile } from './static-files';

export const CONSOLE_PATH = '/console/';

export const consoleAppRoutes: ContextRoutes = (app, { config }) => {
  const root = config.consoleDir;
  if (!root || !consoleBuildPresent(root)) return;
  const send = consoleFileSender(root);
  const index = path.join(root, 'index.html');
  // A build from before fleet.html existed still serves the fleet view, from index.html.
  const fleetIndex = fs.existsSync(path.join(root, 'fleet.html')) ? path.join(root, 'fleet.html') : index;

  const options = { config: { public: true }, schema: { hide: true } } as const;
  app.get('/console', options, async (_request, reply) => reply.redirect(CONSOLE_PATH));
  app.get('/console/*', options, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'] ?? '';
    const file = rest === '' ? index : resolveConsoleFile(root, rest);
    if (file) return send(request, reply, file);
    // A missing asset is a 404 (a stale page asking for an old build's file must not get HTML).
    if (rest.startsWith('assets/') || path.extname(rest) !== '') throw notFound('file');
    return send(request, reply, rest === 'fleet' ? fleetIndex : index);
  });
};
