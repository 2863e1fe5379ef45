/**
 * Where the docs site's "Web console" link leads. The site is built once but served by servers on
 * any port and host, so the link points at `/web-console` on the site's own server, which sends
 * the reader on to the console of the admin server beside it: the configured URL if there is one,
 * else the admin port on the host name the reader used for the site.
 */
import type http from 'node:http';

export const WEB_CONSOLE_PATH = '/web-console';

export interface WebConsoleTarget {
  /** CANOPY_WEB_CONSOLE_URL, else CANOPY_PUBLIC_URL's console: a console behind a proxy or elsewhere. */
  url: string | null;
  adminPort: number;
}

/** The console's address for a reader who reached the site through `hostHeader`. */
export function webConsoleLocation(target: WebConsoleTarget, hostHeader: string | undefined): string {
  if (target.url) return target.url;
  let hostname = '127.0.0.1';
  try {
    // URL drops the port and keeps an IPv6 host in brackets; a malformed Host falls back to loopback.
    if (hostHeader) hostname = new URL(`http://${hostHeader}`).hostname;
  } catch {
    /* loopback */
  }
  return `http://${hostname}:${target.adminPort}/console/`;
}

export function redirectToWebConsole(target: WebConsoleTarget, request: http.IncomingMessage, response: http.ServerResponse): void {
  response.writeHead(302, { location: webConsoleLocation(target, request.headers.host), 'cache-control': 'no-cache' }).end();
}
