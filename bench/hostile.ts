import { performance } from "node:perf_hooks";
import { GITHUB_COMMENT_MAX, HOSTILE_READERS, HOSTILE_SHAPES, hostileText } from "./hostile-text.js";
import { type BenchResult, median, sizesCompared } from "./util.js";

/** A tenth of GitHub's largest comment, then the largest: linear reading takes ten times as long. */
export const HOSTILE_SIZES = [Math.round(GITHUB_COMMENT_MAX / 10), GITHUB_COMMENT_MAX];
/** Pairs where the larger read takes less than this are too short to compare (timer, GC noise). */
const MIN_COMPARED_MS = 1;
/** The slowest read of one text of the largest size: far under what a worker's lease allows. */
const SLOWEST_BUDGET_MS = 250;
/** Time per character at the largest size ÷ at the smallest, for the worst reader and shape. */
const GROWTH_BUDGET = 2;

/** Wall time of one `read(text)`: calls repeated until `windowMs` have passed, at least one. */
function timeRead(read: (text: string) => unknown, text: string, windowMs: number): number {
  let calls = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    read(text);
    calls++;
    elapsed = performance.now() - t0;
  } while (elapsed < windowMs);
  return elapsed / calls;
}

/**
 * The two sizes' times, each the least of `ROUNDS` windows taken in turn: one window's mean can
 * hold a collection of what the calls before it left (a 65,536-character read measured 80 ms in one
 * window and 22 ms a call over 50 ms).
 */
function timePair(read: (text: string) => unknown, a: string, b: string, windowMs: number): [number, number] {
  let small = Number.POSITIVE_INFINITY;
  let large = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    small = Math.min(small, timeRead(read, a, windowMs));
    large = Math.min(large, timeRead(read, b, windowMs));
  }
  return [small, large];
}
const ROUNDS = 3;

interface Pair {
  reader: string;
  shape: string;
  small: number;
  large: number;
}

/**
 * Every reader of untrusted text (bot and PR comments, agent output, redaction) over every hostile
 * shape at two sizes (a lone size against the default smaller one): the slowest read at the larger
 * size, and how the time per character grows.
 */
export async function benchHostileText(
  sizes: number[] = HOSTILE_SIZES,
  windowMs = 20,
): Promise<BenchResult[]> {
  const [small, large] = sizesCompared(sizes, HOSTILE_SIZES);
  const pairs: Pair[] = [];
  for (const reader of HOSTILE_READERS) {
    for (const s of HOSTILE_SHAPES) {
      const a = hostileText(s, small);
      const b = hostileText(s, large);
      reader.read(a); // compiled before it is timed
      const [ta, tb] = timePair(reader.read, a, b, windowMs);
      pairs.push({ reader: reader.name, shape: s.name, small: ta, large: tb });
    }
  }
  const ratio = (p: Pair): number => p.large / large / (p.small / small);
  const slowest = pairs.reduce((m, p) => (p.large > m.large ? p : m));
  const compared = pairs.filter((p) => p.large >= MIN_COMPARED_MS);
  const worst = compared.reduce<Pair | null>((m, p) => (m === null || ratio(p) > ratio(m) ? p : m), null);
  const all = `${HOSTILE_READERS.length} readers × ${HOSTILE_SHAPES.length} shapes`;
  const chars = large.toLocaleString("en");
  return [
    {
      name: `slowest read of a hostile text of ${chars} characters (GitHub's largest comment is 65,536), ${all}`,
      value: slowest.large,
      unit: "ms",
      budget: `≤ ${SLOWEST_BUDGET_MS} ms`,
      ok: slowest.large <= SLOWEST_BUDGET_MS,
      detail: `${slowest.reader}, ${slowest.shape}; at ${small.toLocaleString("en")} characters ${slowest.small.toFixed(2)} ms; median over every pair ${median(pairs.map((p) => p.large)).toFixed(2)} ms`,
    },
    {
      name: `time per character reading a hostile text, ${chars} ÷ ${small.toLocaleString("en")} characters, worst reader and shape`,
      value: worst === null ? 1 : ratio(worst),
      unit: "×",
      budget: `≤ ${GROWTH_BUDGET}× (linear: 1×)`,
      ok: worst === null || ratio(worst) <= GROWTH_BUDGET,
      detail:
        worst === null
          ? `no pair took ${MIN_COMPARED_MS} ms at ${chars} characters`
          : `${worst.reader}, ${worst.shape}: ${worst.small.toFixed(3)} → ${worst.large.toFixed(2)} ms; ${compared.length} of ${pairs.length} pairs took ${MIN_COMPARED_MS} ms or more at ${chars} characters and were compared`,
    },
  ];
}
