/**
 * The items by `keyOf`, in one pass, each group in the items' order; an item whose key is
 * `undefined` is left out. For a list read once per group, which `filter` per group makes
 * quadratic.
 */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K | undefined): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
