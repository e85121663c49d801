/**
 * Per-stage counters (visits, last outcomes) as a persistent three-level table: stage id → two
 * hash digits (64 × 64) → value. The pure step returns a new state after every stage; copying a
 * flat map of every stage a 10,000-stage run visited would cost O(stages) per stage, quadratic
 * over the run. An update here copies one leaf and the two index levels above it: O(64 + 64 +
 * stages / 4,096), the same at any size a run reaches (`max-stages` defaults to 10,000).
 *
 * The leaves are Maps: a stage id as an object's key gives each leaf a shape of its own, and
 * building 3,000 of them took most of a checkpoint's load (docs/benchmarks.md).
 *
 * A table loaded from a checkpoint's snapshot also has a `base`: one flat Map, never changed,
 * under the levels (an entry in the levels wins). Filling it is one Map set per stage id, with no
 * hashing and no levels built: a resumed run pays that instead of putting every counter of its
 * 3,000 stages into the levels before its first stage (docs/benchmarks.md). Updates go into the
 * levels as above and copy the reference to the base.
 *
 * `{}` is an empty table. Checkpoints store the flat form (`toRecord` / `fromRecord`).
 */
export type Counters<V> = Readonly<Record<number, Readonly<Record<number, ReadonlyMap<string, V>>>>> & {
  readonly base?: ReadonlyMap<string, V>;
};

const FAN_OUT = 64;

/**
 * The two hash digits of a stage id (djb2), as numbers: V8 keeps integer keys as an object's
 * elements, with no string made or looked up per access.
 */
function slotsOf(id: string): [number, number] {
  let h = 5381;
  for (let i = 0; i < id.length; i++) h = ((h << 5) + h + id.charCodeAt(i)) | 0;
  const u = h >>> 0;
  return [u % FAN_OUT, Math.floor(u / FAN_OUT) % FAN_OUT];
}

export function getCount<V>(table: Counters<V>, id: string): V | undefined {
  const [a, b] = slotsOf(id);
  const v = table[a]?.[b]?.get(id);
  return v === undefined ? table.base?.get(id) : v;
}

/** A new table with `id` set to `value`; `table` is left as it was. */
export function setCount<V>(table: Counters<V>, id: string, value: V): Counters<V> {
  const [a, b] = slotsOf(id);
  const mid = table[a];
  return { ...table, [a]: { ...mid, [b]: new Map(mid?.[b]).set(id, value) } };
}

/** The flat `id → value` form, for checkpoints and for reading. */
export function toRecord<V>(table: Counters<V>): Record<string, V> {
  const out: Record<string, V> = {};
  if (table.base) for (const [id, v] of table.base) out[id] = v;
  for (let a = 0; a < FAN_OUT; a++) {
    const mid = table[a];
    if (mid === undefined) continue;
    for (const leaf of Object.values(mid)) for (const [id, v] of leaf) out[id] = v;
  }
  return out;
}

export function fromRecord<V>(flat: Readonly<Record<string, V>>): Counters<V> {
  const out: BuildingCounters<V> = {};
  addRecord(out, flat);
  return out;
}

/** A table being built, before any state holds it: `addRecord` changes it in place. */
export type BuildingCounters<V> = Record<number, Record<number, Map<string, V>>> & {
  base?: ReadonlyMap<string, V>;
};

/**
 * Sets every entry of `flat` in `table`, in place (a later entry for an id replaces an earlier):
 * loading a checkpoint fills one table from its snapshot pages and then its own entries, without
 * a flat copy of every counter in between.
 */
export function addRecord<V>(table: BuildingCounters<V>, flat: Readonly<Record<string, V>>): void {
  for (const id in flat) {
    if (!Object.hasOwn(flat, id)) continue;
    const [a, b] = slotsOf(id);
    const mid = table[a] ?? {};
    table[a] = mid;
    const leaf = mid[b] ?? new Map<string, V>();
    mid[b] = leaf;
    leaf.set(id, flat[id] as V);
  }
}
