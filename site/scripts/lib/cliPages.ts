import path from 'node:path';
import { category, cell, frontMatter, resetDir, writeFile } from './write';
import type { CliCommand, CliData, CliOption, ResourceData } from './cliTree';

// Renders one page per resource action of the canopy CLI, under
// docs/canopy-core/tools/canopy-cli/<resource>/<action>.md (nested groups get sub-folders).

const SAMPLE_ORG = '0f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e';
const prn = (type: string, id = '3b7e1c52-9d4a-4f0e-a6b1-5c2d8e9f0a17') => `prn:1:${SAMPLE_ORG}:${type}:${id}`;

/** Example values per option name, chosen to be consistent across pages. */
const SAMPLES: Record<string, unknown> = {
  name: 'gateway-os',
  description: 'Root filesystem for field gateways',
  'custom-metadata': { channel: 'stable' },
  version: '1.4.0',
  hash: '5f3c1b0e8f2a9c4d7e6b5a4938271605f4e3d2c1b0a9f8e7d6c5b4a392817060',
  size: 52428800,
  'expected-binary-size': 52428800,
  index: 1,
  limit: 20,
  search: "name-'gateway'",
  target: 'aarch64-unknown-linux-gnu',
  identifier: 'gw-0042',
  quarantined: false,
  tags: ['site-a'],
  required: false,
  disabled: false,
  'schedule-date': '2025-06-11T05:00:00Z',
  'starts-at': '2025-06-11T05:00:00Z',
  'ends-at': '2025-06-18T05:00:00Z',
  'version-requirement': '~> 1.3',
  'phase-mode': 'numeric',
  'phase-value': 0.25,
  'phase-tags': ['beta'],
  url: 'https://hooks.example.com/canopy',
  'enabled-events': ['device.release_changed'],
  state: 'enabled',
  'device-tunnel-port': 22,
  'cidr-block-allowlist': ['203.0.113.0/24'],
  ttl: 3600,
  'webhook-ttl': 600,
  archived: false,
  value: 'kQ6V0n4nJcD9y0S5M7Jx3p2HnqT1c0yQJf6bJ4m2E8Y=',
  signature: 'a1'.repeat(64),
  'common-name': 'gw-0042',
  days: 365,
  'cert-out': 'gw-0042.pem',
  'key-out': 'gw-0042-key.pem',
  'content-path': './gateway-os-1.4.0.img',
  'certificate-path': './ca.pem',
  'verification-certificate-path': './verification.pem',
  'signing-key-pair': 'release-key',
};

const ENTITY_OF_PRN: Record<string, string> = {
  'artifact-prn': 'artifact',
  'artifact-version-prn': 'artifact_version',
  'artifact-version-prns': 'artifact_version',
  'binary-prn': 'binary',
  'signing-key-prn': 'signing_key',
  'bundle-prn': 'bundle',
  'cohort-prn': 'cohort',
  'product-prn': 'product',
  'device-prn': 'device',
  'device-prns': 'device',
  'next-release-prn': 'release',
  'bundle-override-prn': 'bundle_override',
  'binary-signature-prn': 'binary_signature',
  'jitp-cohort-prn': 'cohort',
};

/** Names read naturally per resource: a release is called "1.4.0", a cohort "beta". */
const NAME_BY_ENTITY: Record<string, string> = {
  bundle: 'gateway-1.4',
  release: '1.4.0',
  cohort: 'beta',
  product: 'gateway',
  signing_key: 'release-key',
  bundle_override: 'hotfix-trial',
};

function sampleFor(option: string, ownEntity: string | null): unknown {
  if (option === 'prn') return prn(ownEntity ?? 'resource');
  if (option === 'name' && ownEntity && NAME_BY_ENTITY[ownEntity]) return NAME_BY_ENTITY[ownEntity];
  if (ENTITY_OF_PRN[option]) {
    const value = prn(ENTITY_OF_PRN[option], '7a41d9e2-0c3b-4b8f-9e15-2d6c8a4f1b90');
    return option.endsWith('prns') ? [value] : value;
  }
  return SAMPLES[option] ?? 'value';
}

const optionName = (o: CliOption) => o.flags.match(/--([a-z0-9-]+)/)?.[1] ?? o.flags;
const isRequired = (o: CliOption) => o.description.startsWith('Required.');
const LOCAL_ONLY = new Set(['content-path', 'signing-key-pair', 'certificate-path', 'verification-certificate-path', 'id', 'path', 'cert-out', 'key-out', 'signer-cert', 'signer-key', 'days', 'common-name']);

function shellValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(shellValue).join(' ');
  if (typeof v === 'object' && v !== null) return `'${JSON.stringify(v)}'`;
  const s = String(v);
  return /^[\w:./@~-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

/** Options shown in the example: the required ones plus a few that readers commonly set. */
const exampleOptions = (options: CliOption[]) =>
  options.map(optionName).filter((name, i) => isRequired(options[i]) || ['description', 'version', 'tags', 'ttl', 'limit', 'search'].includes(name));

function exampleCommand(words: string[], options: CliOption[], entity: string | null): string {
  const flags = exampleOptions(options).map((name) => `--${name} ${shellValue(sampleFor(name, entity))}`);
  if (flags.length <= 1) return [...words, ...flags].join(' ');
  return [words.join(' '), ...flags].join(' \\\n  ');
}

/** A response body in the admin API's wrapping convention, from the options that reach the API. */
function exampleResponse(res: ResourceData, options: CliOption[], action: string): string | null {
  if (!res.entity) return null;
  if (action === 'delete' || (res.name === 'binary-signatures' && action !== 'create')) return null;
  if (action === 'me') return JSON.stringify({ data: { email: 'ops@example.com', prn: `prn:1:user:${SAMPLE_ORG}` } }, null, 2);
  if (action === 'create-verification-code') return JSON.stringify({ verification_code: '4f2a9c1e7b3d8a6f0e5c2b9d7a1f3e8c' }, null, 2);
  if (action === 'test-fire') return JSON.stringify({ event: { version: 1, prn: prn('event'), type: 'webhook', inserted_at: '2025-06-11T05:04:10.081728Z', data: { type: 'test_fire', data: { webhook_prn: prn('webhook') } } } }, null, 2);
  const item: Record<string, unknown> = { prn: prn(res.entity), organization_prn: `prn:1:${SAMPLE_ORG}` };
  const fields = action === 'create' || action === 'update' ? exampleOptions(options) : res.create.map((f) => f.replace(/!$/, ''));
  for (const f of fields) {
    if (LOCAL_ONLY.has(f) || f.startsWith('jitp-') || f === 'prn' || f === 'webhook-ttl') continue;
    const key = f === 'artifact-version-prns' ? 'artifact_versions' : f.replace(/-/g, '_');
    item[key] = sampleFor(f, res.entity);
  }
  if (res.entity === 'binary') Object.assign(item, { state: 'signed', revision: 1, signatures: [] });
  if (res.entity === 'webhook' && (action === 'create' || action === 'roll-secret')) item.secret = '9C0F4B7E2A1D6E3F8B5A0C9D7E2F4A1B';
  if (res.entity === 'tunnel') Object.assign(item, { state: action === 'update' ? 'closed' : 'requested' });
  Object.assign(item, { inserted_at: '2025-06-11T05:04:10.081728Z', updated_at: '2025-06-11T05:04:10.081728Z' });
  const plural = res.entity === 'binary' ? 'binaries' : `${res.entity}s`;
  if (action === 'list') return JSON.stringify({ [plural]: [item], next_page: null }, null, 2);
  const wrapper = res.entity === 'tunnel' ? 'data' : res.entity;
  return JSON.stringify({ [wrapper]: item }, null, 2);
}

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

function optionsTable(options: CliOption[]): string {
  if (options.length === 0) return 'This command takes no options of its own.\n';
  // The environment column only appears when some option can be set from the environment.
  const withEnv = options.some((o) => o.env);
  const rows = options.map((o) => `| \`${cell(o.flags)}\` | ${cell(o.description) || ' '} |${withEnv ? ` ${o.env ? `\`${o.env}\`` : ' '} |` : ''}`);
  const head = withEnv ? ['| Option | Description | Environment |', '| --- | --- | --- |'] : ['| Option | Description |', '| --- | --- |'];
  return [...head, ...rows].join('\n') + '\n';
}

function renderAction(words: string[], cmd: CliCommand, res: ResourceData | undefined, position: number, group?: string): string {
  const key = words.slice(1).join('/');
  const call = res ? apiCall(res, cmd.name, group) : null;
  const response = res ? exampleResponse(res, cmd.options, cmd.name) : null;
  const usage = `${words.join(' ')}${cmd.options.length ? ' [options]' : ''}`;
  let md = frontMatter({ title: words.join(' '), sidebar_label: cmd.name, sidebar_position: position, description: cmd.description });
  md += `${cmd.description}\n\n`;
  if (res) md += `This command belongs to the \`${words[0]} ${words[1]}\` group. ${res.description}\n\n`;
  md += `## Usage\n\n\`\`\`bash\n${usage}\n\`\`\`\n\n## Options\n\n${optionsTable(cmd.options)}\n`;
  md += 'The [global options](/canopy-core/tools/canopy-cli/configuration) (`--api-key`, `--base-url`, `--profile`, `--output`) apply as well.\n\n';
  if (NOTES[key]) md += `## Notes\n\n${NOTES[key]}\n\n`;
  md += `## Example\n\n\`\`\`bash\n${exampleCommand(words, cmd.options, res?.entity ?? null)}\n\`\`\`\n\n`;
  if (response) md += `The command prints the API response:\n\n\`\`\`json\n${response}\n\`\`\`\n\n`;
  else if (cmd.name === 'delete' || cmd.name === 'remove') md += 'On success the command prints nothing and exits with status 0.\n\n';
  if (call) {
    md += `## API call\n\nThis command calls \`${call}\` on the admin API. See the [admin API reference](/canopy-core/tools/admin-api) for every field and status code.\n`;
  } else {
    md += '## API call\n\nNone: this command works on local files only.\n';
  }
  return md;
}

export function writeCliPages(cliDir: string, tree: CliCommand, data: CliData): string[] {
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
          writeFile(path.join(sub, `${leaf.name}.md`), renderAction(words, leaf, res, k + 1, cmd.name));
          written.push(words.slice(1).join('/'));
        });
        return;
      }
      const words = [tree.name, resourceCmd.name, cmd.name];
      writeFile(path.join(dir, `${cmd.name}.md`), renderAction(words, cmd, res, j + 1));
      written.push(words.slice(1).join('/'));
    });
  });
  return written;
}
