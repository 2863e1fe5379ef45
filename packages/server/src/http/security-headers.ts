/**
 * Security headers (CSP, X-Content-Type-Options, X-Frame-Options, Referrer-Policy, HSTS,
 * Cross-Origin-*-Policy...) from helmet, the maintained set of defaults, not written by hand.
 * - The admin API (its JSON, and the console's HTML at /console/): helmet's defaults, whose CSP
 *   (`default-src 'self'`, no inline scripts) a bundled single-page app meets. They are the same
 *   for every answer, so helmet runs once at start and each request copies its headers
 *   (@fastify/helmet built helmet's middleware anew per request: a tenth of a read's CPU).
 * - The documentation site (static-site.ts, plain node:http): helmet's middleware with the CSP
 *   the Docusaurus build needs: its inline theme script and styles, data: images and fonts, and
 *   the page-view beacon's endpoint when one is configured.
 */
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type http from 'node:http';

export async function installAdminSecurityHeaders(app: FastifyInstance): Promise<void> {
  const headers = headersOf(helmet() as unknown as Middleware);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}

/** The headers a middleware that only sets headers sets, read once from a stand-in response. */
export function headersOf(middleware: Middleware): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let called = false;
  middleware({} as http.IncomingMessage, response as unknown as http.ServerResponse, (error) => {
    if (error) throw error;
    called = true;
  });
  if (!called) throw new Error('the security headers middleware did not finish at once');
  return headers;
}

type Middleware = (request: http.IncomingMessage, response: http.ServerResponse, next: (error?: unknown) => void) => void;

export function siteSecurityHeaders(analyticsEndpoint: string | null = null): Middleware {
  const beaconOrigin = analyticsEndpoint ? [new URL(analyticsEndpoint).origin] : [];
  return helmet({
    contentSecurityPolicy: {
      directives: {
        'default-src': ["'self'"],
        // Docusaurus inlines a small script that sets the colour theme before the page paints.
        'script-src': ["'self'", "'unsafe-inline'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'", ...beaconOrigin],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'self'"],
        'upgrade-insecure-requests': null,
      },
    },
    // The site is served over plain HTTP by `npm start`; HSTS belongs to whatever terminates TLS in front.
    strictTransportSecurity: false,
  }) as unknown as Middleware;
}
