import { randomUUID } from 'node:crypto';
/**
 * Which resource a route's path names: `/bundle_overrides/{prn}/devices/{device_prn}` takes a
 * bundle_override in `{prn}` and a device in `{device_prn}`. The prn's type word is the
 * collection's name made singular, as every admin path is written.
 */
export function singular(collection: string): string {
  if (collection.endsWith('ies')) return `${collection.slice(0, -3)}y`;
  return collection.endsWith('s') ? collection.slice(0, -1) : collection;
}

/** The resource type each path parameter of `path` names (`token`, `index` are not prns). */
export function pathParameterTypes(path: string): Map<string, string> {
  const types = new Map<string, string>();
  const segments = path.split('/').filter(Boolean);
  segments.forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (!name) return;
    if (name === 'prn') types.set(name, singular(segments[i - 1]));
    else if (name.endsWith('_prn')) types.set(name, name.slice(0, -4));
    else types.set(name, name);
  });
  return types;
}

/**
 * Where a named value of each path parameter is looked up, most specific first: `{serial}` after
 * `ca_certificates` is `ca_certificates/serial`, then `serial`. The legacy API names resources by
 * such values (organization and product names, identifiers, serials, uuids) instead of prns.
 */
export function valueKeys(path: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  const segments = path.split('/').filter(Boolean);
  segments.forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name) keys.set(name, i > 0 ? [`${segments[i - 1]}/${name}`, name] : [name]);
  });
  return keys;
}

/** The named values of `name` in `path` (see valueKeys), or undefined when none is known. */
export function namedValues(values: Map<string, string[]>, path: string, name: string): string[] | undefined {
  for (const key of valueKeys(path).get(name) ?? [name]) {
    const found = values.get(key);
    if (found) return found;
  }
  return undefined;
}

/**
 * `path` with every parameter filled by a value naming nothing: a fresh prn of the parameter's
 * type in `organizationId` (a random uuid for the others), unless `known` gives one. A `*`
 * wildcard becomes `probe`. For requests whose answer matters before any lookup (auth).
 */
export function pathNamingNothing(path: string, organizationId: string, known: Record<string, string> = {}): string {
  const types = pathParameterTypes(path);
  return path
    .replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (known[name] !== undefined) return encodeURIComponent(known[name]);
      const type = types.get(name) ?? name;
      return name === 'prn' || name.endsWith('_prn') ? `prn:1:${organizationId}:${type}:${randomUUID()}` : randomUUID();
    })
    .replace(/\*$/, 'probe');
}
