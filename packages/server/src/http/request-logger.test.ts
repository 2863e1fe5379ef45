import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from './request-logger';

/** A pino logger at `level` whose lines are collected, parsed. */
function collectingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('request loggers', () => {
  it('write enabled levels with the request id, and nothing below the level', () => {
    const { logger, lines } = collectingLogger('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-1' }, {});
    log.info('not written');
    log.debug({ a: 1 }, 'not written');
    log.warn({ detail: 'x' }, 'written');
    log.error(new Error('boom'));
    expect(lines.map((line) => [line.level, line.reqId, line.msg])).toEqual([
      [40, 'r-1', 'written'],
      [50, 'r-1', 'boom'],
    ]);
    expect(lines[0].detail).toBe('x');
  });

  it('report and change their level, and make children bound to the request id too', () => {
    const { logger, lines } = collectingLogger('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-2' }, {});
    expect(log.level).toBe('warn');
    log.level = 'info';
    log.info('now written');
    log.child({ part: 'inner' }).info('from the child');
    expect(lines.map((line) => [line.reqId, line.part, line.msg])).toEqual([
      ['r-2', undefined, 'now written'],
      ['r-2', 'inner', 'from the child'],
    ]);
    // The parent's level is not the request's to change.
    expect(logger.level).toBe('warn');
  });

  it('give a route with its own log level a child at that level at once', () => {
    const { logger, lines } = collectingLogger('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-3' }, { level: 'debug' });
    expect(log.level).toBe('debug');
    log.debug('written at the route level');
    expect(lines.map((line) => [line.reqId, line.msg])).toEqual([['r-3', 'written at the route level']]);
  });

  it('leave a logger that is not pino to make its own children (Fastify\'s silent logger)', () => {
    const silent = { level: 'silent', fatal() {}, error() {}, warn() {}, info() {}, debug() {}, trace() {}, silent() {}, child: () => silent };
    expect(lazyRequestLogger(silent, { reqId: 'r-4' }, {})).toBe(silent);
  });
});
