import { performance } from "node:perf_hooks";
import { dedupFindings } from "../src/findings/dedup.js";
import { syntheticFindings } from "../src/findings/synthetic.js";
import { median } from "./util.js";

/** SPEC §14: deduplicating 10,000 findings over 500 files. */
export const DEDUP_BUDGET_MS = 250;
const FINDINGS = 10_000;
const FILES = 500;
const RUNS = 5;

/** Median wall time of `dedupFindings` over a seeded batch (regenerated per run, not timed). */
export async function benchDedup(): Promise<{
  name: string;
  medianMs: number;
  runs: number;
  budgetMs: number;
}> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const batch = syntheticFindings(FINDINGS, FILES);
    const t0 = performance.now();
    dedupFindings(batch);
    times.push(performance.now() - t0);
  }
  return {
    name: `dedup ${FINDINGS.toLocaleString("en")} findings over ${FILES} files`,
    medianMs: median(times),
    runs: RUNS,
    budgetMs: DEDUP_BUDGET_MS,
  };
}
