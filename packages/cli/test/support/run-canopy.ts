/** Runs canopy in-process with its own environment and captured output, recording which command ran. */
import type { Command } from 'commander';
import { expect } from 'vitest';
import { runProgram } from '../../src/main';
import { buildProgram } from '../../src/program';
import { createRunContext } from '../../src/run-context';
import { recordCommand } from './command-log';

export interface CanopyRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any;
}

/** "bundle-overrides devices add": the names from below the root down to this command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** `terminal`: stderr claims to be a TTY, as when a person runs canopy (progress bars instead of lines). */
export async function canopy(args: string[], env: Record<string, string | undefined> = {}, { terminal = false } = {}): Promise<CanopyRun> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => (stdout += s), isTTY: false },
    stderr: { write: (s: string) => (stderr += s), isTTY: terminal },
    env,
  };
  const program = buildProgram(createRunContext(io));
  // A hook on the root runs before the action of whichever subcommand was chosen; --help and
  // usage errors never reach an action, so they do not count as running the command.
  let ran: string | undefined;
  program.hook('preAction', (_root, actionCommand) => {
    ran = commandPath(actionCommand);
  });
  const code = await runProgram(program, args, io);
  if (code === 0 && ran) recordCommand(ran);
  let json: unknown;
  try {
    json = stdout ? JSON.parse(stdout) : undefined;
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** A runner bound to `env` that expects exit 0 (showing the command and its stderr otherwise) and answers the JSON. */
export function canopyOk(env: Record<string, string | undefined>): (args: string[]) => Promise<any> {
  return async (args) => {
    const run = await canopy(args, env);
    expect(run.code, `canopy ${args.join(' ')}\n${run.stderr}`).toBe(0);
    return run.json;
  };
}
