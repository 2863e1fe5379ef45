// The subset of OpenAPI 3.1 the reference renderer reads.
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
}
export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
  $ref?: string;
}
export interface MediaType {
  schema?: Schema;
}
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation | Parameter[]>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
  'x-canopy-placeholder'?: boolean;
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface FlatOperation extends Operation {
  method: string;
  path: string;
  id: string;
}

/** Every operation of the document in path order, with a stable anchor id. */
export function listOperations(doc: OpenApiDocument): FlatOperation[] {
  const ops: FlatOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const id = op.operationId ?? `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-');
      ops.push({ ...op, method, path, id });
    }
  }
  return ops;
}

/** Follows local `#/components/...` references; the server names shared schemas by $id. */
export function resolve<T extends { $ref?: string }>(doc: OpenApiDocument, value: T): T {
  let current: T = value;
  const seen = new Set<string>();
  while (current?.$ref && !seen.has(current.$ref)) {
    seen.add(current.$ref);
    const parts = current.$ref.replace(/^#\//, '').split('/');
    let target: unknown = doc;
    for (const part of parts) target = (target as Record<string, unknown> | undefined)?.[part];
    if (!target) break;
    current = target as T;
  }
  return current;
}

export function typeLabel(doc: OpenApiDocument, schema: Schema | undefined): string {
  if (!schema) return 'any';
  const s = resolve(doc, schema);
  const name = schema.$ref?.split('/').pop();
  const types = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (types === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) return `${types?.replace('array', `${typeLabel(doc, s.items)}[]`)}`;
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.oneOf || s.anyOf) return (s.oneOf ?? s.anyOf)!.map((x) => typeLabel(doc, x)).join(' | ');
  return name ?? (types ? `${types}${s.format ? ` (${s.format})` : ''}` : 'object');
}
