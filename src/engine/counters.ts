/**
 * Per-stage counters (visits, last outcomes) as a persistent three-level table: stage id → two
 * hash digits (64 × 64) → value. The pure step returns a new state after every stage; copying a
 * flat map of every stage a 10,000-stage run visited would cost O(stages) per stage, quadratic
 * over the run. An update here copies one leaf and the two index levels above it: O(64 + 64 +
 * stages / 4,096), the same at any size a run reaches (`max-stages` defaults to 10,000).
 *
 * `{}` is an empty table. Checkpoints store the flat form (`toRecord` / `fromRecord`).
 */
export type Counters<V> = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, V>>>>>>;

const FAN_OUT = 64;

/** The two hash digits of a stage id (djb2). */
function slotsOf(id: string): [string, string] {
  let h = 5381;
  for (let i = 0; i < id.length; i++) h = ((h << 5) + h + id.charCodeAt(i)) | 0;
  const u = h >>> 0;
  return [String(u % FAN_OUT), String(Math.floor(u / FAN_OUT) % FAN_OUT)];
}

export function getCount<V>(table: Counters<V>, id: string): V | undefined {
  const [a, b] = slotsOf(id);
  return table[a]?.[b]?.[id];
}

/** A new table with `id` set to `value`; `table` is left as it was. */
export function setCount<V>(table: Counters<V>, id: string, value: V): Counters<V> {
  const [a, b] = slotsOf(id);
  const mid = table[a];
  return { ...table, [a]: { ...mid, [b]: { ...mid?.[b], [id]: value } } };
}

/** The flat `id → value` form, for checkpoints and for reading. */
export function toRecord<V>(table: Counters<V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const mid of Object.values(table)) for (const leaf of Object.values(mid)) Object.assign(out, leaf);
  return out;
}

export function fromRecord<V>(flat: Readonly<Record<string, V>>): Counters<V> {
  const out: Record<string, Record<string, Record<string, V>>> = {};
  for (const [id, value] of Object.entries(flat)) {
    const [a, b] = slotsOf(id);
    const mid = out[a] ?? {};
    out[a] = mid;
    const leaf = mid[b] ?? {};
    mid[b] = leaf;
    leaf[id] = value;
  }
  return out;
}
