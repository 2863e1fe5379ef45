/**
 * Runs canopy once and answers the exit code: 0 success, 1 API or network error (the message
 * names status, code and context), 2 usage error. No process.exit here, so tests run it in-process.
 */
import { CanopyApiError, CanopyNetworkError } from '@canopy/sdk';
import { CommanderError, type Command } from 'commander';
import { EXIT_API_ERROR, EXIT_OK, EXIT_USAGE, UsageError } from './errors';
import type { CliIo } from './io';
import { buildProgram } from './program';
import { createRunContext } from './run-context';

function applyOutput(command: Command, io: CliIo): void {
  command.exitOverride();
  command.configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  for (const sub of command.commands) applyOutput(sub, io);
}

export function describeApiError(error: CanopyApiError): string {
  const entries = error.errors.map((e) => `  ${e.code} ${JSON.stringify(e.context)}`).join('\n');
  return `error: ${error.method} ${error.path} answered ${error.status}\n${entries}\n`;
}

export function runCli(argv: string[], io: CliIo): Promise<number> {
  return runProgram(buildProgram(createRunContext(io)), argv, io);
}

/** Runs an already built program (tests build it themselves to watch which command ran). */
export async function runProgram(program: Command, argv: string[], io: CliIo): Promise<number> {
  applyOutput(program, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other commander complaint is a usage error.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof UsageError) {
      io.stderr.write(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof CanopyApiError) {
      io.stderr.write(describeApiError(error));
      return EXIT_API_ERROR;
    }
    if (error instanceof CanopyNetworkError) {
      io.stderr.write(`error: ${error.message}\n`);
      return EXIT_API_ERROR;
    }
    io.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
    return EXIT_API_ERROR;
  }
}
