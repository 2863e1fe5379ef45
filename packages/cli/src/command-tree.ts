/** The command tree as plain data (`{name, description, options, commands}`), for the docs site's CLI pages. */
import type { Command } from 'commander';
import { GLOBAL_OPTIONS } from './program';

export interface CommandNode {
  name: string;
  description: string;
  usage: string;
  arguments: { name: string; description: string; required: boolean }[];
  options: { flags: string; description: string; required?: boolean; env?: string }[];
  /** The help text after the options: the API route and examples. */
  help_after?: string;
  commands: CommandNode[];
}

const ENV_BY_FLAGS = new Map(GLOBAL_OPTIONS.map((o) => [o.flags, o.env]));

export function commandTree(command: Command, helpAfter: (command: Command) => string | undefined = () => undefined): CommandNode {
  return {
    name: command.name(),
    description: command.description(),
    usage: command.usage(),
    arguments: command.registeredArguments.map((a) => ({ name: a.name(), description: a.description, required: a.required })),
    options: command.options.map((o) => {
      const env = ENV_BY_FLAGS.get(o.flags);
      return { flags: o.flags, description: o.description, ...(o.mandatory ? { required: true } : {}), ...(env ? { env } : {}) };
    }),
    ...(helpAfter(command) ? { help_after: helpAfter(command) } : {}),
    commands: command.commands.map((sub) => commandTree(sub, helpAfter)),
  };
}
