/** Every command path of the exported command tree ("bundle-overrides devices add"), built from the real program. */
import { commandTree, type CommandNode } from '../../src/command-tree';
import { buildProgram } from '../../src/program';
import { createRunContext } from '../../src/run-context';

export interface CommandPath {
  words: string[];
  /** A command that runs something (no subcommands), as opposed to a group like `bundle-overrides`. */
  leaf: boolean;
}

const silentIo = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };

export const program = buildProgram(createRunContext(silentIo));

function walk(node: CommandNode, prefix: string[]): CommandPath[] {
  return node.commands.flatMap((sub) => {
    const words = [...prefix, sub.name];
    return [{ words, leaf: sub.commands.length === 0 }, ...walk(sub, words)];
  });
}

export const commandPaths: CommandPath[] = walk(commandTree(program), []);
