import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parseWorkflow } from "../src/workflow/parse.js";
import { type BenchResult, chainWorkflow, median } from "./util.js";

/**
 * Issue 10, "thousand-stage runs": reading and checking a workflow (KDL, then the graph rules)
 * before its first stage runs. Checking a 30,000-stage chain once took 6× the time per stage of
 * a 1,000-stage one (every stage scanned every transition); it must grow linearly. The default
 * sizes end at 10,000, the default `max-stages`; `FIXPOINT_BENCH_WORKFLOW=1000,30000` goes
 * further (docs/benchmarks.md gives what it shows).
 */
export const WORKFLOW_SIZES = [1_000, 3_000, 10_000];
/** Per-stage time at the largest size may be at most this multiple of the smallest size's. */
const GROWTH_TARGET = 1.5;

/** Below 3,000 stages one run may or may not meet a young-generation collection: many runs. */
function runsFor(n: number): number {
  return n <= 3_000 ? 15 : n <= 10_000 ? 7 : 3;
}

/**
 * A full garbage collection, so every run starts from the same heap: otherwise a run pays for the
 * garbage of the ones before it, and at 30,000 stages single runs varied from 1 s to 12 s.
 */
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/**
 * Median wall time (ms) of `parseWorkflow` on a chain of `n` stages, each run from a collected
 * heap. (CPU time counts V8's parallel collector threads too, which vary more than the work.)
 */
function parseMs(n: number): number {
  const text = chainWorkflow(n);
  const times: number[] = [];
  for (let i = 0; i < runsFor(n); i++) {
    collect();
    const started = performance.now();
    parseWorkflow(text, "bench:chain");
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function benchWorkflowSize(sizes: number[] = WORKFLOW_SIZES): Promise<BenchResult[]> {
  parseMs(Math.min(...sizes)); // the parser's first compiles are start-up, not per-stage cost
  const measured = sizes.map((n) => ({ n, ms: parseMs(n) }));
  const perStage = (ms: number, n: number) => ((ms * 1000) / n).toFixed(1);
  const out: BenchResult[] = measured.map(({ n, ms }) => ({
    name: `reading and checking a workflow of ${n.toLocaleString("en")} stages, median of ${runsFor(n)} runs`,
    value: ms,
    unit: "ms",
    budget: "linear",
    ok: true,
    detail: `${perStage(ms, n)} µs per stage`,
  }));
  const growth = growthRow(measured);
  if (growth !== null) out.push(growth);
  return out;
}

/**
 * Growth is judged on the marginal time per stage added (the slope between consecutive sizes),
 * last step against first: equal when reading is linear, and free of the fixed costs and of the
 * young-generation collections that make small sizes vary. Null with fewer than three sizes.
 */
export function growthRow(measured: readonly { n: number; ms: number }[]): BenchResult | null {
  const [a, b] = [measured[0], measured[1]];
  const [y, z] = [measured.at(-2), measured.at(-1)];
  if (measured.length < 3 || !a || !b || !y || !z) return null;
  const slope = (p: { n: number; ms: number }, q: { n: number; ms: number }) =>
    ((q.ms - p.ms) * 1000) / (q.n - p.n);
  const first = slope(a, b);
  const last = slope(y, z);
  const growth = last / first;
  // Sizes too close together for the machine's noise can make either step shrink: then there is
  // no ratio to judge (a negative one would read as met), and the row says so and does not pass.
  const measurable = first > 0 && last > 0;
  const shrank =
    first > 0
      ? `${y.n.toLocaleString("en")} → ${z.n.toLocaleString("en")}`
      : `${a.n.toLocaleString("en")} → ${b.n.toLocaleString("en")}`;
  return {
    name: `time per stage added reading a workflow, ${y.n.toLocaleString("en")} → ${z.n.toLocaleString("en")} ÷ ${a.n.toLocaleString("en")} → ${b.n.toLocaleString("en")} stages`,
    value: growth,
    unit: "×",
    budget: `≤ ${GROWTH_TARGET}×`,
    ok: measurable && growth <= GROWTH_TARGET,
    detail: `${last.toFixed(1)} against ${first.toFixed(1)} µs per stage added (medians; KDL parse, stage and transition reading, the graph rules)${measurable ? "" : `; the ${shrank} step took no longer per stage added: sizes too close together to judge growth`}`,
  };
}
