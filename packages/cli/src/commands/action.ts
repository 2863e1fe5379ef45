/** The shape of the command table: resources, their actions, and what a custom action gets to run with. */
import type { CanopyClient } from '@canopy/sdk';
import type { Settings } from '../config/settings';
import type { ConfigStore } from '../config/store';
import type { CliIo } from '../io';
import type { Field } from './fields';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface PositionalArg {
  /** Name in the path template (`{prn}`) and in help (`<prn>`). */
  name: string;
  description: string;
  example: string;
}

/** What a custom handler receives. */
export interface ActionRun {
  args: Record<string, string>;
  /** Wire body built from the action's body fields. */
  body: Record<string, unknown>;
  /** Query built from the action's query fields and list flags. */
  query: Record<string, unknown>;
  /** Every option value commander parsed, camelCase, including extra options. */
  options: Record<string, unknown>;
  client: () => CanopyClient;
  settings: Settings;
  store: ConfigStore;
  io: CliIo;
}

export interface ActionDef {
  name: string;
  summary: string;
  /** The documented route; custom handlers may call more than this one. Absent for local-only actions (x509, config). */
  method?: HttpMethod;
  path?: string;
  args?: PositionalArg[];
  body?: Field[];
  query?: Field[];
  /** A list endpoint: adds --limit --order --search --page --all; the items live under this key. */
  listKey?: string;
  /** Options only a custom handler reads (not sent as they are). */
  extra?: Field[];
  /** Needs no API key (POST /users/auth). */
  public?: boolean;
  /** Full example command lines for --help. Generated from required fields when absent. */
  examples?: string[];
  /** Replaces the plain request. Answers what to print (undefined prints nothing). */
  handler?: (run: ActionRun) => Promise<unknown>;
}

export interface ResourceDef {
  command: string;
  description: string;
  actions: ActionDef[];
  /** Nested groups, e.g. `bundle-overrides devices add`. */
  groups?: ResourceDef[];
}
