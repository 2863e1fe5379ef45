import path from 'node:path';
import { category, cell, frontMatter, resetDir, writeFile } from './write';
import type { CliArgument, CliCommand, CliData, CliOption, ResourceData } from './cliTree';

// Renders one page per resource action of the canopy CLI, under
// docs/canopy-core/tools/canopy-cli/<resource>/<action>.md (nested groups get sub-folders).

/** One recorded run of a command (data/cli-examples.json, written by test/cliExamples.test.ts). */
export interface CliExample {
  command: string;
  output: string;
}
export type CliExamples = Record<string, CliExample>;

const isRequired = (o: CliOption) => o.required === true || o.description.startsWith('Required.');

function apiCall(res: ResourceData, action: string, group?: string): string | null {
  if (!res.path) return null;
  const id = `{${res.entity}_prn}`;
  if (group === 'devices') {
    const method = action === 'add' ? 'POST' : action === 'remove' ? 'DELETE' : 'GET';
    return `${method} /bundle_overrides/{bundle_override_prn}/devices`;
  }
  const table: Record<string, string> = {
    create: `POST ${res.path}`,
    get: `GET ${res.path}/${id}`,
    list: `GET ${res.path}`,
    update: `${res.entity === 'ca_certificate' ? 'PUT' : 'PATCH'} ${res.path}/${id}`,
    delete: `DELETE ${res.path}/${id}`,
    'create-verification-code': 'POST /ca_certificates/verification_codes',
    me: 'GET /users/me',
    'roll-secret': `POST ${res.path}/${id}/roll_secret`,
    'test-fire': `POST ${res.path}/${id}/test_fire`,
  };
  if (res.name === 'binary-parts') return action === 'create' ? 'PUT /binaries/{binary_prn}/parts/{index}' : 'GET /binaries/{binary_prn}/parts';
  return table[action] ?? null;
}

const NOTES: Record<string, string> = {
  'binaries/create':
    'With `--content-path` the CLI does the whole upload: it hashes the file, creates the binary, uploads 5 MiB parts in parallel, marks the binary `hashable`, asks the server to verify it, and, with `--signing-key-pair`, signs the hash and attaches the signature. Without it only the record is created and the binary stays `uploadable`.',
  'binaries/update':
    'State changes follow the binary state machine: `uploadable` → `hashable` → `hashing` → `signable` → `signed`; any non-final state can go back to `uploadable` (parts are dropped and `revision` increases), and `destroyed` is final.',
  'binary-signatures/create':
    'The signature is Ed25519 over the ASCII bytes of the binary\'s lowercase hex SHA-256. With `--signing-key-pair` the CLI computes it locally from the named key pair; the private key never leaves your machine. The binary must be fully uploaded and verified.',
  'releases/create':
    'Without `--next-release-prn` the release is appended as the latest in the cohort\'s chain. Only the latest release may be scheduled in the future or phased; a change that would break the chain is rejected with 409 and changes nothing.',
  'tunnels/update': 'An update may only set `state` to `closed`, or extend the tunnel with a new `ttl` counted from now (1 to 3600 seconds).',
  'webhooks/roll-secret': 'The new secret is printed once. While `--webhook-ttl` runs, deliveries carry both signatures in `canopy-signature`, new first, so receivers can switch over without dropping events.',
  'webhooks/create': 'Creating an enabled webhook sends a `webhook.test_fire` event; creation succeeds only if the endpoint answers 200. The secret is shown only in this response.',
  'x509/create': 'Use it to make a development CA and device certificates. Register the CA with `canopy ca-certificates create`; devices then authenticate to the device API with certificates it signed.',
  'ca-certificates/create-verification-code': 'Sign a certificate whose common name is the code with your CA key, then pass it as `--verification-certificate-path` to `canopy ca-certificates create`. Codes are valid for one week and can be used once.',
  'products/update': 'A product cannot be archived while it still has firmware or unarchived devices.',
};

function argumentsTable(args: CliArgument[]): string {
  if (args.length === 0) return '';
  const rows = args.map((a) => `| \`<${cell(a.name)}>\` | ${a.required ? 'yes' : 'no'} | ${cell(a.description) || ' '} |`);
  return ['## Arguments', '', '| Argument | Required | Description |', '| --- | --- | --- |', ...rows].join('\n') + '\n\n';
}

function optionsTable(options: CliOption[]): string {
  if (options.length === 0) return 'This command takes no options of its own.\n';
  // The environment column only appears when some option can be set from the environment.
  const withEnv = options.some((o) => o.env);
  const rows = options.map(
    (o) => `| \`${cell(o.flags)}\` | ${isRequired(o) ? '**yes**' : 'no'} | ${cell(o.description.replace(/^Required\.\s*/, '')) || ' '} |${withEnv ? ` ${o.env ? `\`${o.env}\`` : ' '} |` : ''}`,
  );
  const head = withEnv
    ? ['| Option | Required | Description | Environment |', '| --- | --- | --- | --- |']
    : ['| Option | Required | Description |', '| --- | --- | --- |'];
  return [...head, ...rows].join('\n') + '\n';
}

/** A long command line broken before its options, as people write them in scripts. */
function wrapCommand(line: string): string {
  return line.length <= 90 ? line : line.replace(/ (?=--[a-z])/g, ' \\\n  ');
}

/** The example of a command the session did not record: the CLI's own help example, if any. */
function helpExample(cmd: CliCommand): string | null {
  const match = /Example:\n\s*\$ (.+)/.exec(cmd.help_after ?? '');
  return match ? match[1] : null;
}

function renderAction(words: string[], cmd: CliCommand, res: ResourceData | undefined, position: number, examples: CliExamples, group?: string): string {
  const key = words.slice(1).join('/');
  const call = res ? apiCall(res, cmd.name, group) : null;
  const recorded = examples[words.slice(1).join(' ')];
  const usage = `${words.join(' ')} ${cmd.usage ?? (cmd.options.length ? '[options]' : '')}`.trim();
  let md = frontMatter({ title: words.join(' '), sidebar_label: cmd.name, sidebar_position: position, description: cmd.description });
  md += `${cmd.description}\n\n`;
  if (res) md += `This command belongs to the \`${words[0]} ${words[1]}\` group. ${res.description}\n\n`;
  md += `## Usage\n\n\`\`\`bash\n${usage}\n\`\`\`\n\n`;
  md += argumentsTable(cmd.arguments ?? []);
  md += `## Options\n\n${optionsTable(cmd.options)}\n`;
  md += 'The [global options](/canopy-core/tools/canopy-cli/configuration) (`--api-key`, `--base-url`, `--profile`, `--output`) apply as well.\n\n';
  if (NOTES[key]) md += `## Notes\n\n${NOTES[key]}\n\n`;
  if (recorded) {
    md += `## Example\n\nRecorded from a run against a real server (ids and times differ on yours; \`$NAME\` variables hold prns printed by earlier commands):\n\n\`\`\`bash\n${wrapCommand(recorded.command)}\n\`\`\`\n\n`;
    md += recorded.output
      ? `The command prints:\n\n\`\`\`${recorded.output.startsWith('{') ? 'json' : 'text'}\n${recorded.output}\n\`\`\`\n\n`
      : 'On success the command prints nothing and exits with status 0.\n\n';
  } else if (helpExample(cmd)) {
    md += `## Example\n\n\`\`\`bash\n${helpExample(cmd)}\n\`\`\`\n\n`;
  }
  if (call) {
    md += `## API call\n\nThis command calls \`${call}\` on the admin API. See the [admin API reference](/canopy-core/tools/admin-api) for every field and status code.\n`;
  } else {
    md += '## API call\n\nNone: this command works on local files only.\n';
  }
  return md;
}

export function writeCliPages(cliDir: string, tree: CliCommand, data: CliData, examples: CliExamples = {}): string[] {
  const written: string[] = [];
  tree.commands.forEach((resourceCmd, i) => {
    const dir = path.join(cliDir, resourceCmd.name);
    resetDir(dir);
    category(dir, resourceCmd.name, 10 + i, `canopy-cli-${resourceCmd.name}`);
    const res = data.resources.find((r) => r.name === resourceCmd.name);
    resourceCmd.commands.forEach((cmd, j) => {
      if (cmd.commands.length > 0) {
        const sub = path.join(dir, cmd.name);
        category(sub, cmd.name, 100 + j, `canopy-cli-${resourceCmd.name}-${cmd.name}`);
        cmd.commands.forEach((leaf, k) => {
          const words = [tree.name, resourceCmd.name, cmd.name, leaf.name];
          writeFile(path.join(sub, `${leaf.name}.md`), renderAction(words, leaf, res, k + 1, examples, cmd.name));
          written.push(words.slice(1).join('/'));
        });
        return;
      }
      const words = [tree.name, resourceCmd.name, cmd.name];
      writeFile(path.join(dir, `${cmd.name}.md`), renderAction(words, cmd, res, j + 1, examples));
      written.push(words.slice(1).join('/'));
    });
  });
  return written;
}
