/** --help works on every command, shows an example, and exits 0; the exported command tree matches the program. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_SUBTYPES, EVENT_TYPES, SUBSCRIBABLE_EVENTS } from '@canopy/sdk/event-catalogue';
import { commandTree } from '../src/command-tree';
import { commandPaths, program } from './support/command-paths';
import { canopy } from './support/run-canopy';

describe('help', () => {
  it.each(commandPaths.map((p) => [p.words.join(' '), p.words]))('canopy %s --help', async (_, commandPath) => {
    const run = await canopy([...(commandPath as string[]), '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: canopy');
    expect(run.stdout).toContain('Example:');
  });

  it('covers every resource action of the spec list', () => {
    const all = new Set(commandPaths.map((p) => p.words.join(' ')));
    const expected = [
      ...['artifacts', 'artifact-versions', 'binaries', 'bundles', 'bundle-overrides', 'releases', 'signing-keys', 'webhooks'].flatMap((r) => ['create', 'get', 'list', 'update', 'delete'].map((a) => `${r} ${a}`)),
      ...['cohorts', 'products', 'tunnels'].flatMap((r) => ['create', 'get', 'list', 'update'].map((a) => `${r} ${a}`)),
      'ca-certificates create', 'ca-certificates get', 'ca-certificates list', 'ca-certificates update', 'ca-certificates delete', 'ca-certificates verification-code',
      'device-certificates create', 'device-certificates get', 'device-certificates list', 'device-certificates delete',
      'devices create', 'devices get', 'devices list', 'devices update', 'devices delete', 'devices get-update',
      'binary-parts create', 'binary-parts list', 'binary-signatures create', 'binary-signatures delete',
      'bundle-overrides devices add', 'bundle-overrides devices list', 'bundle-overrides devices remove',
      'users me', 'webhooks roll-secret', 'webhooks test-fire',
      'x509 create-ca', 'x509 create-verification-certificate', 'x509 create-device-certificate',
      'config set', 'config get', 'config list', 'config use',
    ];
    for (const command of expected) expect(all, command).toContain(command);
  });

  it('lists the event catalogue\'s events in help and in command-tree.json', async () => {
    const webhooks = await canopy(['webhooks', 'create', '--help']);
    const events = await canopy(['events', 'list', '--help']);
    for (const name of SUBSCRIBABLE_EVENTS) expect(webhooks.stdout.replace(/\s+/g, ' ')).toContain(name);
    for (const type of EVENT_TYPES) expect(events.stdout).toContain(type);
    for (const subtype of EVENT_SUBTYPES) expect(events.stdout).toContain(subtype);
    // The docs site's CLI pages are built from the committed tree: it must carry the same lists.
    const saved = fs.readFileSync(path.resolve(__dirname, '../command-tree.json'), 'utf8');
    expect(saved).toContain(JSON.stringify(`Comma-separated: ${SUBSCRIBABLE_EVENTS.join(', ')}.`));
    expect(saved).toContain(JSON.stringify(`Event subtype: ${EVENT_SUBTYPES.join(', ')}.`));
  });

  it('command-tree.json is up to date (npm run command-tree -w @canopy/cli)', () => {
    const file = path.resolve(__dirname, '../command-tree.json');
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    const strip = (node: any): any => ({ name: node.name, options: node.options.map((o: any) => o.flags), commands: node.commands.map(strip) });
    expect(strip(saved)).toEqual(strip(commandTree(program)));
    expect(saved.options.find((o: { flags: string }) => o.flags.startsWith('--api-key')).env).toBe('CANOPY_API_KEY');
  });
});
