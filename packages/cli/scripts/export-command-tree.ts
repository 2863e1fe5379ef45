/** Writes packages/cli/command-tree.json from the real commander program (the docs site reads it). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { commandTree } from '../src/command-tree';
import { buildProgram } from '../src/program';
import { createRunContext } from '../src/run-context';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../command-tree.json');
const program = buildProgram(createRunContext({ stdout: process.stdout, stderr: process.stderr, env: {} }));

/** The "after" help (route and examples) as commander would print it. */
function helpAfter(command: Command): string | undefined {
  let text = '';
  (command as unknown as NodeJS.EventEmitter).emit('afterHelp', { error: false, command, write: (s: string) => (text += s) });
  return text.trim() || undefined;
}

fs.writeFileSync(out, `${JSON.stringify(commandTree(program, helpAfter), null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
