/** A run splits in two above this many values. */
const RUN_MAX = 512;

/**
 * Numbers in order of a key, held in runs of at most RUN_MAX: adding one moves at most a run's
 * values, where one sorted array moves half of all of them (thousands of findings added one by
 * one to one file were quadratic, issue 10), and a range is still found by binary search. Equal
 * keys keep the order their values were added in. The key of a value must not change.
 */
export class SortedRuns {
  private runs: number[][] = [];
  private count = 0;

  constructor(private readonly key: (value: number) => number) {}

  get size(): number {
    return this.count;
  }

  /** Adds values, each after every value already here whose key is at most its own. */
  addAll(values: readonly number[]): void {
    if (values.length === 0) return;
    // Many at once (the first flush of a loaded registry): sort them and merge, in O(n + k log k).
    if (values.length * 4 >= this.count) {
      const added = [...values].sort((x, y) => this.key(x) - this.key(y));
      this.rebuild(merge(this.runs.flat(), added, this.key));
      return;
    }
    for (const v of values) this.add(v);
  }

  /** Adds one value after every value already here whose key is at most its own. */
  add(value: number): void {
    const k = this.key(value);
    // The first run whose last key is above k; the value goes in it, or at the end of the last.
    const at = Math.min(this.firstRun(k, true), this.runs.length - 1);
    this.count++;
    if (at < 0) {
      this.runs.push([value]);
      return;
    }
    const run = this.runs[at] as number[];
    run.splice(
      firstIn(run.length, (i) => this.key(run[i] as number), k, true),
      0,
      value,
    );
    if (run.length > RUN_MAX)
      this.runs.splice(at, 1, run.slice(0, run.length >> 1), run.slice(run.length >> 1));
  }

  /**
   * Calls `visit` on each value whose key is at least `from`, in order, until it returns false.
   */
  visitFrom(from: number, visit: (value: number) => boolean): void {
    const lo = this.firstRun(from, false);
    for (let r = lo; r < this.runs.length; r++) {
      const run = this.runs[r] as number[];
      const start = r === lo ? firstIn(run.length, (i) => this.key(run[i] as number), from, false) : 0;
      for (let i = start; i < run.length; i++) {
        if (!visit(run[i] as number)) return;
      }
    }
  }

  /** All values, in order. */
  values(): number[] {
    return this.runs.flat();
  }

  private rebuild(all: number[]): void {
    this.runs = [];
    for (let i = 0; i < all.length; i += RUN_MAX / 2) this.runs.push(all.slice(i, i + RUN_MAX / 2));
    this.count = all.length;
  }

  /** The first run whose last key is at least `k` (above `k` when `above`). */
  private firstRun(k: number, above: boolean): number {
    return firstIn(
      this.runs.length,
      (r) => {
        const run = this.runs[r] as number[];
        return this.key(run[run.length - 1] as number);
      },
      k,
      above,
    );
  }
}

/** The first of `length` places, their keys ascending, whose key is at least `k` (above `k` when `above`). */
function firstIn(length: number, keyAt: (i: number) => number, k: number, above: boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = keyAt(mid);
    if (at < k || (above && at === k)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Two lists sorted by key merged into one; on equal keys, `old`'s values go first. */
function merge(old: number[], added: number[], key: (v: number) => number): number[] {
  if (old.length === 0) return added;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length && j < added.length) {
    const a = old[i] as number;
    const b = added[j] as number;
    if (key(a) <= key(b)) {
      out.push(a);
      i++;
    } else {
      out.push(b);
      j++;
    }
  }
  for (; i < old.length; i++) out.push(old[i] as number);
  for (; j < added.length; j++) out.push(added[j] as number);
  return out;
}
