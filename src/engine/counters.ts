/**
 * Per-stage counters (visits, last outcomes) as a persistent two-level table: stage id → bucket
 * (a hash) → value. The pure step returns a new state after every stage; copying a flat map of
 * every stage a 3,000-stage run visited would cost O(stages) per stage, quadratic over the run.
 * An update here copies one bucket and the bucket index: O(stages / BUCKETS + BUCKETS).
 *
 * `{}` is an empty table. Checkpoints store the flat form (`toRecord` / `fromRecord`).
 */
export type Counters<V> = Readonly<Record<string, Readonly<Record<string, V>>>>;

const BUCKETS = 64;

function bucketOf(id: string): string {
  let h = 5381;
  for (let i = 0; i < id.length; i++) h = ((h << 5) + h + id.charCodeAt(i)) | 0;
  return String((h >>> 0) % BUCKETS);
}

export function getCount<V>(table: Counters<V>, id: string): V | undefined {
  return table[bucketOf(id)]?.[id];
}

/** A new table with `id` set to `value`; `table` is left as it was. */
export function setCount<V>(table: Counters<V>, id: string, value: V): Counters<V> {
  const b = bucketOf(id);
  return { ...table, [b]: { ...table[b], [id]: value } };
}

/** The flat `id → value` form, for checkpoints and for reading. */
export function toRecord<V>(table: Counters<V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const bucket of Object.values(table)) Object.assign(out, bucket);
  return out;
}

export function fromRecord<V>(flat: Readonly<Record<string, V>>): Counters<V> {
  const out: Record<string, Record<string, V>> = {};
  for (const [id, value] of Object.entries(flat)) {
    const b = bucketOf(id);
    out[b] ??= {};
    (out[b] as Record<string, V>)[id] = value;
  }
  return out;
}
