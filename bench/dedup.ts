import { performance } from "node:perf_hooks";
import type { RawFinding } from "../src/domain/types.js";
import { dedupFindings } from "../src/findings/dedup.js";
import { syntheticFindings } from "../src/findings/synthetic.js";
import { type BenchResult, median } from "./util.js";

/** SPEC §14: deduplicating 10,000 findings over 500 files. */
export const DEDUP_BUDGET_MS = 250;
const FINDINGS = 10_000;
const FILES = 500;
const RUNS = 5;
/**
 * Batches of findings without a file: they match on the title alone, so no file narrows the
 * search. Before they were looked up by pieces of their titles (src/findings/dedup.ts), each was
 * compared with every other: 13.6 s at 10,000 and 293 s at 50,000 on the benchmark machine.
 */
export const FILELESS_SIZES = [2_000, 10_000];

/** Median wall time of `dedupFindings` over a seeded batch (regenerated per run, not timed). */
function timeDedup(make: () => RawFinding[], runs: number): number {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const batch = make();
    const t0 = performance.now();
    dedupFindings(batch);
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** The same synthetic findings with neither file nor lines, as a general remark has. */
function withoutFiles(n: number): RawFinding[] {
  return syntheticFindings(n, FILES).map((f) => ({ ...f, file: null, lineStart: null, lineEnd: null }));
}

/**
 * SPEC §14's batch (10,000 findings over 500 files) against its budget, and batches of findings
 * without a file at each size in `fileless`, reported with their time per finding.
 */
export async function benchDedup(fileless: number[] = FILELESS_SIZES): Promise<BenchResult[]> {
  const ms = timeDedup(() => syntheticFindings(FINDINGS, FILES), RUNS);
  const out: BenchResult[] = [
    {
      name: `deduplicating ${FINDINGS.toLocaleString("en")} findings over ${FILES} files, median`,
      value: ms,
      unit: "ms",
      budget: `≤ ${DEDUP_BUDGET_MS} ms`,
      ok: ms <= DEDUP_BUDGET_MS,
      detail: `${RUNS} runs of the batch dedup on seeded synthetic findings`,
    },
  ];
  const perFinding: number[] = [];
  for (const n of fileless) {
    const runs = n > FINDINGS ? 1 : 3;
    const m = timeDedup(() => withoutFiles(n), runs);
    perFinding.push((m * 1000) / n);
    out.push({
      name: `deduplicating ${n.toLocaleString("en")} findings without a file, median`,
      value: m,
      unit: "ms",
      budget: "report",
      ok: true,
      detail: `${runs} runs; ${((m * 1000) / n).toFixed(1)} µs per finding; each is compared only with the titles that keep two of its pieces near their place, not with every finding without a file (before: 626 ms at 2,000, 13.6 s at 10,000)`,
    });
  }
  if (fileless.length >= 2) {
    const ratio = (perFinding.at(-1) as number) / (perFinding[0] as number);
    out.push({
      name: `time per finding without a file, ${(fileless.at(-1) as number).toLocaleString("en")} ÷ ${(fileless[0] as number).toLocaleString("en")} findings`,
      value: ratio,
      unit: "×",
      budget: "report",
      ok: true,
      detail: `${perFinding.map((u) => u.toFixed(1)).join(" → ")} µs per finding. The synthetic titles draw on 60 words, so more of them share pieces as a batch grows; comparing each with every other, as before, took 22× as long for 5× the findings`,
    });
  }
  return out;
}
