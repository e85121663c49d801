import type { Finding, FixReportEntry, PriorVerdict, RawFinding } from "../src/domain/types.js";
import { Registry } from "../src/findings/registry.js";
import { renderFindingsWithin, renderPriorWithin } from "../src/findings/render.js";
import { syntheticFindings } from "../src/findings/synthetic.js";
import { type BenchResult, median } from "./util.js";

/** Issue 10 (b): one fix cycle's registry work ≤ 200 ms at 5,000 findings, ≤ 1 s at 50,000. */
export const REGISTRY_SIZES = [100, 1_000, 5_000, 50_000];
const TARGET_MS: Record<number, number> = { 5000: 200, 50000: 1_000 };
const REVIEWERS = ["review:code", "review:security", "review:tests"];
const BUDGET = 64 * 1024;

/** A registry holding about `n` findings, as a long-running task accumulates them. */
function seeded(n: number): Finding[] {
  let t = 0;
  const reg = Registry.load("t-bench", [], { blockingSeverity: "P1", now: () => ++t });
  const raws = syntheticFindings(Math.ceil(n * 1.5), Math.max(10, Math.floor(n / 20)), 7);
  let held = 0;
  for (let i = 0; i < raws.length && held < n; i += 500) {
    const batch = raws.slice(i, Math.min(i + 500, i + (n - held)));
    held += reg.addFindings(batch, { source: REVIEWERS[i % 3] ?? "review:code", cycle: 0 }).added.length;
  }
  return reg.all();
}

/**
 * Everything the registry does in one fix cycle: load the task's findings, three reviewers each
 * add a batch (dedup against the whole registry) and give statuses for what they were shown,
 * the fixer's section is rendered and its report applied, and the changes drained for the store.
 */
function oneCycle(findings: Finding[], fresh: RawFinding[], cycle: number): { ms: number; fixBytes: number } {
  let t = 0;
  const cpu = process.cpuUsage();
  const reg = Registry.load("t-bench", findings, { blockingSeverity: "P1", now: () => ++t });
  let fixBytes = 0;
  for (const [r, source] of REVIEWERS.entries()) {
    const prior = reg.forReview();
    const asked = renderPriorWithin(BUDGET / 2, prior, {
      blockingSeverity: "P1",
      taskId: "t-bench",
      raisedBy: source,
      resolvedIds: reg.resolvedIds(),
      budgetKey: "defaults prompt-budget",
    });
    const verdicts: PriorVerdict[] = asked.shown.map((id, i) => ({
      id,
      status: i % 3 === r ? "resolved" : "still_open",
    }));
    reg.applyPrior(verdicts, { source, cycle, expectedIds: asked.shown });
    reg.addFindings(fresh.slice(r * 20, r * 20 + 20), { source, cycle });
  }
  const outstanding = reg.forFix();
  const section = renderFindingsWithin(BUDGET / 2, outstanding, {
    blockingSeverity: "P1",
    taskId: "t-bench",
    resolvedIds: reg.resolvedIds(),
    budgetKey: "defaults prompt-budget",
  });
  fixBytes = Buffer.byteLength(section.text);
  const omitted = new Set(section.omitted);
  const shownIds = outstanding.map((f) => f.id).filter((id) => !omitted.has(id));
  const entries: FixReportEntry[] = shownIds.map((id, i) =>
    i % 2 === 0
      ? { id, status: "fixed", justification: "guarded the call" }
      : { id, status: "deferred", justification: "needs the schema migration planned in ticket 41" },
  );
  reg.applyFixReport({ summary: "", entries }, { cycle, commitSha: "abc", shownIds });
  reg.drainChanges();
  // CPU time, not wall time: on a shared machine the wall clock measures the neighbours.
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000, fixBytes };
}

/** Median over a few cycles at each size; sizes from FIXPOINT_BENCH_FINDINGS (comma list) or the defaults. */
export async function benchRegistry(sizes: number[] = REGISTRY_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const n of sizes) {
    const findings = seeded(n);
    const fresh = syntheticFindings(60, 30, 99 + n);
    const times: number[] = [];
    const runs = n >= 50_000 ? 3 : 5;
    for (let c = 1; c <= runs; c++) times.push(oneCycle(findings, fresh, c).ms);
    const m = median(times);
    const target = TARGET_MS[n];
    out.push({
      name: `registry work (CPU) in one fix cycle, ${findings.length.toLocaleString("en")} findings, median`,
      value: m,
      unit: "ms",
      budget: target ? `≤ ${target} ms` : "linear",
      ok: target ? m <= target : true,
      detail: `${runs} cycles: load, 3 reviewers (bounded prior list, statuses, 20 new findings each), bounded fix section, fix report, drain; ${((m * 1000) / findings.length).toFixed(1)} µs per finding${target ? `; ${(m / target).toFixed(2)}× the target` : ""}`,
    });
  }
  return out;
}
