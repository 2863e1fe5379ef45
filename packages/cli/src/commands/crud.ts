/**
 * Builds the usual create/get/list/update/delete actions of a REST collection from a few facts,
 * so the command table states only what differs between resources.
 */
import type { ActionDef, HttpMethod, PositionalArg } from './action';
import type { Field } from './fields';

export type CrudAction = 'create' | 'get' | 'list' | 'update' | 'delete';

export interface CrudSpec {
  /** Collection path: `/artifacts`. */
  path: string;
  /** Words for help text: `artifact`. */
  noun: string;
  /** List key in the list answer: `artifacts`. */
  plural: string;
  /** Example prn type segment: `artifact`. */
  prnType: string;
  actions: CrudAction[];
  create?: Field[];
  update?: Field[];
  /** PATCH unless the API says PUT (CA certificates accept both). */
  updateMethod?: HttpMethod;
  /** Extra list filters besides limit/order/search/page. */
  listQuery?: Field[];
  /** Command name for examples: `artifacts`. */
  command: string;
}

const ORG = '9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70';
export const examplePrn = (type: string) => `prn:1:${ORG}:${type}:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69`;

export function prnArg(noun: string, prnType: string): PositionalArg {
  return { name: 'prn', description: `Resource name of the ${noun}.`, example: examplePrn(prnType) };
}

/** "a" or "an" before a noun, by its first sound: "an artifact", "a CA certificate". */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

export function crud(spec: CrudSpec): ActionDef[] {
  const item = `${spec.path}/{prn}`;
  const arg = prnArg(spec.noun, spec.prnType);
  const make: Record<CrudAction, () => ActionDef> = {
    create: () => ({ name: 'create', summary: `Create ${withArticle(spec.noun)}.`, method: 'POST', path: spec.path, body: spec.create ?? [] }),
    get: () => ({ name: 'get', summary: `Show one ${spec.noun}.`, method: 'GET', path: item, args: [arg] }),
    list: () => ({ name: 'list', summary: `List ${spec.plural.replace(/_/g, ' ')}.`, method: 'GET', path: spec.path, listKey: spec.plural, query: spec.listQuery ?? [] }),
    update: () => ({
      name: 'update',
      summary: `Change ${withArticle(spec.noun)}; only the flags given are sent.`,
      method: spec.updateMethod ?? 'PATCH',
      path: item,
      args: [arg],
      body: (spec.update ?? spec.create ?? []).map((f) => ({ ...f, required: false })),
    }),
    delete: () => ({ name: 'delete', summary: `Delete ${withArticle(spec.noun)}.`, method: 'DELETE', path: item, args: [arg] }),
  };
  return spec.actions.map((action) => make[action]());
}
