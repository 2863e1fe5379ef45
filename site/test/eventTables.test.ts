/**
 * The events and webhooks pages list the event catalogue (packages/sdk/src/event-catalogue.ts)
 * through partials generated at build (scripts/lib/eventTables.ts): every event is in the table,
 * every subscribable one in the webhooks list, the partials are MDX that compiles, and the pages
 * render them (a page that stopped importing its table would list nothing).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compile } from '@mdx-js/mdx';
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, SUBSCRIBABLE_EVENTS, eventName } from '../../packages/sdk/src/event-catalogue';
import { EVENT_PARTIALS_DIR, EVENT_TYPES_PARTIAL, eventTypesTable, SUBSCRIBABLE_EVENTS_PARTIAL, subscribableEventsTable, writeEventPartials } from '../scripts/lib/eventTables';
import { siteDir } from './helpers/paths';

describe('event tables', () => {
  it('list every event of the catalogue with its type, subtype and whether webhooks can subscribe', () => {
    const rows = eventTypesTable().split('\n').slice(2);
    for (const entry of EVENT_CATALOGUE) {
      const row = rows.find((r) => r.startsWith(`| \`${entry.type}\` |`) && r.split(' | ')[1].includes(`\`${entry.subtype}\``));
      expect(row, eventName(entry)).toBeDefined();
      const webhooks = row!.split(' | ').pop()!;
      if (entry.subscribable) expect(webhooks, eventName(entry)).toContain(`\`${eventName(entry)}\``);
      else expect(webhooks.includes(`\`${eventName(entry)}\``), eventName(entry)).toBe(false);
    }
    const listed = subscribableEventsTable().split('\n').slice(2).map((r) => r.split('`')[1]);
    expect(listed).toEqual(SUBSCRIBABLE_EVENTS);
  });

  it('are MDX that compiles, written where the pages import them', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-events-'));
    fs.mkdirSync(path.join(tmp, EVENT_PARTIALS_DIR), { recursive: true });
    const written = writeEventPartials(tmp);
    for (const file of written) await compile(fs.readFileSync(file, 'utf8'));
    const page = (name: string) => fs.readFileSync(path.join(siteDir, EVENT_PARTIALS_DIR, name), 'utf8');
    // The pages became MDX to import their tables: they must compile as MDX too.
    for (const name of ['events.mdx', 'webhooks.mdx']) await compile(page(name));
    expect(page('events.mdx')).toContain(`import EventTypes from './${EVENT_TYPES_PARTIAL}';`);
    expect(page('events.mdx')).toContain('<EventTypes />');
    expect(page('webhooks.mdx')).toContain(`import SubscribableEvents from './${SUBSCRIBABLE_EVENTS_PARTIAL}';`);
    expect(page('webhooks.mdx')).toContain('<SubscribableEvents />');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('escape what MDX would read as code outside code spans', async () => {
    const table = eventTypesTable([{ type: 't', subtype: 's', subscribable: false, summary: '', data: 'see {prn} and <b> but `{kept}` | pipe' }]);
    expect(table).toContain('see \\{prn\\} and \\<b\\> but `{kept}` \\| pipe');
    await compile(table);
  });
});
