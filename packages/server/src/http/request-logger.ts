/**
 * Each request's logger (`request.log`), made when the request first logs something at a level
 * that is enabled, instead of for every request. Fastify's default makes a pino child logger
 * (bound to the request id) per request; at the levels a busy server runs at (warn, error)
 * almost no request logs anything, and that child was 1.3% of the device API's CPU under kept-
 * alive update checks. What is logged is the same: the child, once made, writes every line.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type LogArguments = [unknown, ...unknown[]];

class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(level: Level, args: LogArguments): void {
    if (this.#child === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.logger[level] as (...args: LogArguments) => void)(...args);
  }

  fatal(...args: LogArguments): void {
    this.write('fatal', args);
  }

  error(...args: LogArguments): void {
    this.write('error', args);
  }

  warn(...args: LogArguments): void {
    this.write('warn', args);
  }

  info(...args: LogArguments): void {
    this.write('info', args);
  }

  debug(...args: LogArguments): void {
    this.write('debug', args);
  }

  trace(...args: LogArguments): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

function isPino(logger: FastifyBaseLogger): logger is Logger {
  return typeof (logger as Partial<Logger>).isLevelEnabled === 'function';
}

/**
 * Fastify's `childLoggerFactory`. A route with its own log level gets its child at once (its
 * level is not the parent's), and so does a logger that is not pino (Fastify's silent one, whose
 * children are itself).
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || !isPino(logger)) return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
