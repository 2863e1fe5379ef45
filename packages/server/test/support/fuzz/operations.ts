/**
 * The operations an OpenAPI document describes, in the form the fuzzer needs: method, path
 * template, parameters by place, and the JSON body schema. Reading the document (not a hand-kept
 * list) is what makes a new route fuzzed without anyone touching the fuzzer.
 */
import type { JsonSchema } from './schema-arbitrary';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** `/devices/{prn}` */
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  /** The multipart/form-data form it takes (legacy firmware uploads), or null. */
  multipart: JsonSchema | null;
  /** Its OpenAPI tags (the legacy API's are `legacy ...`). */
  tags: string[];
  /** 5xx statuses the operation documents (the legacy upload's 500 invalid_signature, as the public API answers it). */
  documented5xx: number[];
  /** Its 200 answer is a Server-Sent Events stream (GET /events/stream): open until closed. */
  streams: boolean;
}

function resolve(document: any, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema && typeof schema.$ref === 'string') {
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce((node: any, key: string) => node?.[key], document);
    return resolve(document, target);
  }
  return schema;
}

export function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters: Parameter[] = (operation.parameters ?? []).map((p: any) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: resolve(document, p.schema) ?? {},
      }));
      const body = resolve(document, operation.requestBody?.content?.['application/json']?.schema) ?? null;
      const multipart = resolve(document, operation.requestBody?.content?.['multipart/form-data']?.schema) ?? null;
      const streams = Boolean(operation.responses?.['200']?.content?.['text/event-stream']);
      const documented5xx = Object.keys(operation.responses ?? {}).filter((status) => /^5\d\d$/.test(status)).map(Number);
      operations.push({ method: method.toUpperCase(), path, parameters, body, multipart, tags: operation.tags ?? [], documented5xx, streams });
    }
  }
  return operations;
}

/** Writes run last, deletes after everything else, so most requests meet existing resources. */
export function inFuzzOrder(operations: Operation[]): Operation[] {
  const rank: Record<string, number> = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 };
  return [...operations].sort((a, b) => rank[a.method] - rank[b.method]);
}
