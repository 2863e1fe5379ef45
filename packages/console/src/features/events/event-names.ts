/**
 * Names for the prns an event mentions: the event's own data often carries the resource it is
 * about (`device` as the admin API shows it, a webhook's `name`); the console's cached lists
 * (releases, cohorts, products, bundles) name the rest.
 */
export type Names = ReadonlyMap<string, string>;

/** Every `{prn, name | identifier}` object in the data, one level deep, as prn -> name. */
export function namesInData(data: Record<string, unknown>): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (value: unknown) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    const v = value as Record<string, unknown>;
    const label = typeof v.name === 'string' ? v.name : typeof v.identifier === 'string' ? v.identifier : null;
    if (typeof v.prn === 'string' && label) found.set(v.prn, label);
  };
  visit(data);
  for (const value of Object.values(data)) visit(value);
  return found;
}

export function nameOf(prn: string, data: Record<string, unknown>, names: Names): string | undefined {
  return namesInData(data).get(prn) ?? names.get(prn);
}
