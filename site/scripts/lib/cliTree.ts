import fs from 'node:fs';
import path from 'node:path';

// The shape the canopy CLI exports with its command tree (packages/cli/command-tree.json).
export interface CliOption {
  flags: string;
  description: string;
  env?: string;
  required?: boolean;
}
export interface CliArgument {
  name: string;
  description: string;
  required: boolean;
}
export interface CliCommand {
  name: string;
  description: string;
  /** commander's usage line after the command's name: `[options] <prn>`. */
  usage?: string;
  arguments?: CliArgument[];
  options: CliOption[];
  commands: CliCommand[];
  /** The help text after the options (API route, example). */
  help_after?: string;
}

export interface ResourceData {
  name: string;
  entity: string | null;
  path: string | null;
  description: string;
  fields: Record<string, string>;
  create: string[];
  update: string[];
  actions: string[];
  subcommands?: Record<string, { path: string; actions: string[] }>;
}
export interface CliData {
  name: string;
  description: string;
  globalOptions: CliOption[];
  listOptions: CliOption[];
  resources: ResourceData[];
}

export function loadCliData(siteDir: string): CliData {
  return JSON.parse(fs.readFileSync(path.join(siteDir, 'data/cli-resources.json'), 'utf8')) as CliData;
}

/**
 * The CLI's own tree wins when it exists, so documented flags are the tool's flags.
 * Otherwise the tree is built from the site's data file with the same page list.
 */
export function loadCliTree(repoDir: string, data: CliData): { tree: CliCommand; source: string } {
  const exported = path.join(repoDir, 'packages/cli/command-tree.json');
  if (fs.existsSync(exported)) {
    return { tree: JSON.parse(fs.readFileSync(exported, 'utf8')) as CliCommand, source: 'packages/cli/command-tree.json' };
  }
  return { tree: treeFromData(data), source: 'site/data/cli-resources.json' };
}

const kebabToFlag = (field: string, required: boolean, data: ResourceData): CliOption => {
  const name = field.replace(/!$/, '');
  const described = data.fields[name] ?? '';
  return {
    flags: `--${name} <${name.replace(/-/g, '_')}>`,
    description: required ? `Required. ${described}` : described,
  };
};

const prnOption = (entity: string): CliOption => ({ flags: '--prn <prn>', description: `Required. The ${entity.replace(/_/g, ' ')}'s prn.` });

function actionOptions(res: ResourceData, action: string, data: CliData): CliOption[] {
  const fields = (list: string[]) => list.map((f) => kebabToFlag(f, f.endsWith('!'), res));
  const entity = res.entity ?? res.name;
  switch (action) {
    case 'create':
      return fields(res.create);
    case 'get':
    case 'delete':
      if (res.name === 'binary-signatures') return [{ flags: '--binary-signature-prn <prn>', description: 'Required. Signature to delete.' }];
      return [prnOption(entity)];
    case 'update':
      return [prnOption(entity), ...fields(res.update)];
    case 'list':
      if (res.name === 'binary-parts') return [{ flags: '--binary-prn <prn>', description: 'Required. Binary whose parts to list.' }];
      return data.listOptions;
    case 'roll-secret':
      return [prnOption(entity), kebabToFlag('webhook-ttl', false, res)];
    case 'test-fire':
      return [prnOption(entity)];
    default:
      return [];
  }
}

const actionText: Record<string, string> = {
  create: 'Create',
  get: 'Show',
  list: 'List',
  update: 'Update',
  delete: 'Delete',
};

/** "binaries" -> "binary", "ca-certificates" -> "CA certificate", with its article. */
function singular(resource: string): string {
  const words = resource.replace(/ies$/, 'y').replace(/s$/, '').replace(/^ca-/, 'CA-').replace(/-/g, ' ').replace(/^x509$/, 'X.509 certificate');
  return `${/^([aeio]|X\.)/i.test(words) ? 'an' : 'a'} ${words}`;
}

export function treeFromData(data: CliData): CliCommand {
  return {
    name: data.name,
    description: data.description,
    options: data.globalOptions,
    commands: data.resources.map((res) => ({
      name: res.name,
      description: res.description,
      options: [],
      commands: [
        ...res.actions.map((action) => ({
          name: action,
          description: describeAction(res, action),
          options: actionOptions(res, action, data),
          commands: [],
        })),
        ...Object.entries(res.subcommands ?? {}).map(([sub, spec]) => ({
          name: sub,
          description: `Manage the ${sub} of a ${res.name.replace(/s$/, '').replace(/-/g, ' ')}.`,
          options: [],
          commands: spec.actions.map((action) => ({
            name: action,
            description: `${action === 'add' ? 'Add devices to' : action === 'remove' ? 'Remove devices from' : 'List the devices of'} a bundle override.`,
            options: [
              { flags: '--bundle-override-prn <prn>', description: 'Required. The bundle override.' },
              ...(action === 'list' ? [] : [{ flags: '--device-prns <prn...>', description: 'Required. Devices to add or remove.' }]),
            ],
            commands: [],
          })),
        })),
      ],
    })),
  };
}

function describeAction(res: ResourceData, action: string): string {
  if (res.name === 'binary-parts') return action === 'create' ? 'Upload one part of a binary, creating or replacing the part at that index.' : 'List the parts uploaded for a binary.';
  if (res.name === 'x509') return 'Create an X.509 certificate and private key locally, as a CA or signed by one.';
  const noun = res.name.replace(/-/g, ' ').replace(/^ca /, 'CA ');
  if (action === 'list') return `List ${noun}, a page at a time.`;
  if (action === 'get') return `Show ${singular(res.name)} by its prn.`;
  if (actionText[action]) return `${actionText[action]} ${singular(res.name)}.`;
  const special: Record<string, string> = {
    'create-verification-code': 'Create a one-time verification code for registering a CA certificate.',
    me: 'Show the user that owns the API key.',
    'roll-secret': 'Replace a webhook secret, keeping the old one valid for a grace period.',
    'test-fire': 'Send a webhook.test_fire event to the webhook.',
  };
  return special[action] ?? `${action} ${noun}.`;
}
