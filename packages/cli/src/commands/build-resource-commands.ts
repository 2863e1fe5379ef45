/** Turns the command table into commander commands: flags, positional arguments, help with examples, and the call. */
import { Command, Option } from 'commander';
import { fillPath, listAll } from '@canopy/sdk';
import { UsageError } from '../errors';
import type { ActionDef, ResourceDef } from './action';
import { collectFields, int, str, valuePlaceholder, type Field } from './fields';
import type { RunContext } from '../run-context';

const LIST_FLAGS: Field[] = [
  int('limit', 'Items per page, 1 to 100 (default 10).'),
  str('order', 'By inserted_at: asc or desc (default desc).', { choices: ['asc', 'desc'] }),
  str('search', "Search clauses, e.g. \"name-'gateway' and inserted_at>='2025-01-01T00:00:00Z'\"."),
  str('page', 'The next_page cursor of the previous page.'),
];

function addField(command: Command, field: Field): void {
  const option = new Option(`--${field.flag} ${valuePlaceholder(field)}`, field.description);
  if (field.required) option.makeOptionMandatory();
  command.addOption(option);
}

function exampleFor(path: string[], action: ActionDef): string[] {
  if (action.examples) return action.examples;
  const parts = ['canopy', ...path, action.name];
  for (const arg of action.args ?? []) parts.push(arg.example);
  for (const field of [...(action.body ?? []), ...(action.extra ?? [])]) if (field.required) parts.push(`--${field.flag}`, field.example ?? `<${field.flag}>`);
  if (action.listKey) parts.push('--limit', '20');
  return [parts.join(' ')];
}

function buildAction(path: string[], action: ActionDef, context: RunContext): Command {
  const command = new Command(action.name).description(action.summary);
  for (const arg of action.args ?? []) command.argument(`<${arg.name}>`, arg.description);
  for (const field of [...(action.body ?? []), ...(action.query ?? []), ...(action.extra ?? [])]) addField(command, field);
  if (action.listKey) {
    for (const field of LIST_FLAGS) addField(command, field);
    command.option('--all', 'Follow next_page and print every item.');
  }
  const route = action.method && action.path ? `\nAPI: ${action.method} ${action.path}` : '\nRuns locally; calls no API.';
  command.addHelpText('after', `${route}\n\nExample:\n${exampleFor(path, action).map((e) => `  $ ${e}`).join('\n')}\n`);

  command.action(async (...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    const positional = received.slice(0, (action.args ?? []).length) as string[];
    const args = Object.fromEntries((action.args ?? []).map((arg, i) => [arg.name, positional[i]]));
    const options = self.optsWithGlobals() as Record<string, unknown>;
    const body = collectFields(action.body ?? [], options);
    const query = collectFields([...(action.query ?? []), ...(action.listKey ? LIST_FLAGS : [])], options);
    const answer = action.handler
      ? await action.handler({ args, body, query, options, client: () => context.client(options), settings: context.settings(options), store: context.store, io: context.io })
      : await request(action, args, body, query, options, context);
    context.print(answer, options);
  });
  return command;
}

async function request(action: ActionDef, args: Record<string, string>, body: Record<string, unknown>, query: Record<string, unknown>, options: Record<string, unknown>, context: RunContext): Promise<unknown> {
  if (!action.method || !action.path) throw new UsageError(`${action.name} has no route`);
  const client = context.client(options, !action.public);
  const path = fillPath(action.path, args);
  if (action.listKey && options.all) {
    const items = await listAll(client, path, { itemsKey: action.listKey, query: { ...(query as Record<string, string>), limit: (query.limit as number | undefined) ?? 100 } });
    return { [action.listKey]: items, next_page: null };
  }
  const hasBody = action.method !== 'GET' && action.method !== 'DELETE';
  // PATCH/PUT bodies carry the prn too: the contract says servers ignore unknown keys and some clients rely on it.
  const payload = hasBody ? (action.method === 'POST' ? body : { ...(args.prn ? { prn: args.prn } : {}), ...body }) : undefined;
  return client.request(action.method, path, { body: payload, query: query as Record<string, string> });
}

export function buildResourceCommand(resource: ResourceDef, context: RunContext, parents: string[] = []): Command {
  const path = [...parents, resource.command];
  const command = new Command(resource.command).description(resource.description);
  for (const action of resource.actions) command.addCommand(buildAction(path, action, context));
  for (const group of resource.groups ?? []) command.addCommand(buildResourceCommand(group, context, path));
  const first = resource.actions[0];
  command.addHelpText('after', `\nExample:\n  $ ${exampleFor(path, first)[0]}\n`);
  return command;
}
