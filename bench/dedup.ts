import { performance } from "node:perf_hooks";
import type { RawFinding } from "../src/domain/types.js";
import { dedupFindings, TITLE_SCAN_MAX } from "../src/findings/dedup.js";
import { Registry } from "../src/findings/registry.js";
import { syntheticFindings } from "../src/findings/synthetic.js";
import { TOKEN_CANDIDATES } from "../src/findings/title-tokens.js";
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

/**
 * Registries whose findings are all in one file, added in batches of 500 as a task's reviews add
 * them: over 3,000 lines, and without lines (each of those is near every finding of the file, so
 * by SPEC §8 every one is a candidate). Before the counts of a title's characters were compared
 * first, and before a file's line index was kept in runs (src/util/sorted-runs.ts), 5,000 took
 * 804 ms and 22.2 s here (20,000 over 3,000 lines: 4.6 s). Without lines, each finding was then
 * still compared with every other: 972 ms at 2,000, 5.33 s at 5,000 and 24.0 s at 10,000 (2026-12-03),
 * until a file's titles were looked up by their tokens past TITLE_SCAN_MAX (src/findings/title-tokens.ts).
 */
export const ONE_FILE_SIZES = [2_000, 10_000];
const BATCH = 500;

/** CPU time of adding findings to an empty registry until it holds `n`. */
function timeSeeding(n: number, lines: boolean): number {
  let t = 0;
  const registry = Registry.load("t-bench", [], { blockingSeverity: "P1", now: () => ++t });
  const raws = syntheticFindings(Math.ceil(n * 1.6), FILES, 7).map((f) => ({
    ...f,
    file: "src/app.ts",
    ...(lines ? {} : { lineStart: null, lineEnd: null }),
  }));
  const before = process.cpuUsage();
  let held = 0;
  for (let i = 0; i < raws.length && held < n; i += BATCH) {
    const batch = raws.slice(i, i + Math.min(BATCH, n - held));
    held += registry.addFindings(batch, { source: "review:code", cycle: 0 }).added.length;
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

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
 * SPEC §14's batch (10,000 findings over 500 files) against its budget, batches of findings
 * without a file at each size in `fileless`, and registries of `oneFile` findings in one file,
 * each reported with its time per finding.
 */
export async function benchDedup(
  fileless: number[] = FILELESS_SIZES,
  oneFile: number[] = ONE_FILE_SIZES,
): Promise<BenchResult[]> {
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
      detail: `${perFinding.map((u) => u.toFixed(1)).join(" → ")} µs per finding. The synthetic titles draw on 60 words, so more of them share pieces as a batch grows, and their character counts (compared first) tell most of those apart; comparing each with every other, as before, took 22× as long for 5× the findings`,
    });
  }
  for (const lines of [true, false]) {
    const perUnit: number[] = [];
    for (const n of oneFile) {
      const m = timeSeeding(n, lines);
      perUnit.push(m / n);
      out.push({
        name: `adding ${n.toLocaleString("en")} findings to a registry, all in one file ${lines ? "over 3,000 lines" : "without lines"}`,
        value: m,
        unit: "ms",
        budget: "report",
        ok: true,
        detail: `CPU, batches of ${BATCH}; ${((m * 1000) / n).toFixed(1)} µs per finding; ${
          lines
            ? "each compared with those within ±5 lines (before: 804 ms at 5,000)"
            : `each compared with every finding of the file while it holds ${TITLE_SCAN_MAX} or fewer (none has a line to narrow by), then with the ${TOKEN_CANDIDATES} sharing the most of its rarer tokens (before: 5.33 s at 5,000, 24.0 s at 10,000)`
        }`,
      });
    }
    if (oneFile.length >= 2) {
      const [first, last] = [oneFile[0] as number, oneFile.at(-1) as number];
      out.push({
        name: `time per finding added to one file ${lines ? "over 3,000 lines" : "without lines"}, ${last.toLocaleString("en")} ÷ ${first.toLocaleString("en")} findings`,
        value: (perUnit.at(-1) as number) / (perUnit[0] as number),
        unit: "×",
        budget: "report",
        ok: true,
        detail: `${perUnit.map((u) => (u * 1000).toFixed(1)).join(" → ")} µs per finding: linear is 1×, comparing each with every other ${(last / first).toFixed(1)}×`,
      });
    }
  }
  return out;
}
