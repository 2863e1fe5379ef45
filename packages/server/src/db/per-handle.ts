/**
 * Values made once per database handle and key: prepared statements, grouping queues, batched
 * finders. They belong to one handle (a statement is prepared on its connections; a queue sends to
 * it), and a process may hold several handles (each test builds its own platform and database), so
 * they are held weakly by the handle and go with it.
 */
export class PerHandle<Key, Value> {
  private readonly byHandle = new WeakMap<object, Map<Key, Value>>();

  /** The value of `key` for `handle`, made by `make` on first use. */
  get(handle: object, key: Key, make: () => Value): Value {
    let byKey = this.byHandle.get(handle);
    if (!byKey) this.byHandle.set(handle, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) byKey.set(key, (value = make()));
    return value;
  }
}
