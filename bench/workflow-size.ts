import { parseWorkflow } from "../src/workflow/parse.js";
import { type BenchResult, chainWorkflow, median } from "./util.js";

/**
 * Issue 10, "thousand-stage runs": reading and checking a workflow (KDL, then the graph rules)
 * before its first stage runs. Checking a 30,000-stage chain once took 24× the time per stage of
 * a 1,000-stage one (every stage scanned every transition); it must grow linearly.
 */
export const WORKFLOW_SIZES = [1_000, 10_000, 30_000];
/** Per-stage time at the largest size may be at most this multiple of the smallest size's. */
const GROWTH_TARGET = 1.5;

function runsFor(n: number): number {
  return n <= 1_000 ? 9 : n <= 10_000 ? 5 : 3;
}

/** Median CPU time (ms) of `parseWorkflow` on a chain of `n` stages. */
function parseMs(n: number): number {
  const text = chainWorkflow(n);
  const times: number[] = [];
  for (let i = 0; i < runsFor(n); i++) {
    const cpu = process.cpuUsage();
    parseWorkflow(text, "bench:chain");
    const used = process.cpuUsage(cpu);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

export async function benchWorkflowSize(sizes: number[] = WORKFLOW_SIZES): Promise<BenchResult[]> {
  parseMs(Math.min(...sizes)); // the parser's first compile is start-up, not per-stage cost
  const measured = sizes.map((n) => ({ n, ms: parseMs(n) }));
  const out: BenchResult[] = measured.map(({ n, ms }) => ({
    name: `reading and checking a workflow of ${n.toLocaleString("en")} stages (CPU), median`,
    value: ms,
    unit: "ms",
    budget: "linear",
    ok: true,
    detail: `${((ms * 1000) / n).toFixed(1)} µs per stage; ${runsFor(n)} runs`,
  }));
  const small = measured[0];
  const large = measured.at(-1);
  if (small && large && large.n > small.n) {
    const growth = large.ms / large.n / (small.ms / small.n);
    out.push({
      name: `per-stage time reading a workflow, ${large.n.toLocaleString("en")} ÷ ${small.n.toLocaleString("en")} stages`,
      value: growth,
      unit: "×",
      budget: `≤ ${GROWTH_TARGET}×`,
      ok: growth <= GROWTH_TARGET,
      detail: `${((large.ms * 1000) / large.n).toFixed(1)} against ${((small.ms * 1000) / small.n).toFixed(1)} µs per stage (KDL parse, stage and transition reading, the graph rules)`,
    });
  }
  return out;
}
