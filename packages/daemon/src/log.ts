/**
 * JSON-lines logger: one line per decision on stdout, which journald (or the simulator) reads.
 *
 * Never log a key or a secret: callers pass facts (prns, sizes, states, reasons), and `redact`
 * below drops any field whose name says it holds secret material, as a second line of defence.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields` (e.g. the virtual device's identifier). */
  child(fields: LogFields): Logger;
}

/** Field names whose values must never reach a log line. */
const SECRET_FIELD = /(private|secret|password|token|key_pem|authorization|cookie)/i;

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = SECRET_FIELD.test(name) ? '[redacted]' : value instanceof Error ? value.message : value;
  }
  return out;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where each line goes; stdout by default. Tests and the simulator pass their own sink. */
  write?: (line: string) => void;
  now?: () => Date;
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const level = options.level ?? 'info';
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const now = options.now ?? (() => new Date());
  const emit = (at: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[at] > RANK[level]) return;
    write(`${JSON.stringify({ time: now().toISOString(), level: at, msg, ...redact(base), ...redact(fields ?? {}) })}\n`);
  };
  return {
    error: (msg, fields) => emit('error', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    debug: (msg, fields) => emit('debug', msg, fields),
    child: (fields) => createLogger(options, { ...base, ...fields }),
  };
}

/** A logger that drops everything (the simulator's quiet devices, some tests). */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child: () => silentLogger,
};
