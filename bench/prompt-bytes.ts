import { join } from "node:path";
import { DEFAULT_PROMPT_BUDGET } from "../src/config/defaults.js";
import type { Finding, RawFinding } from "../src/domain/types.js";
import { FIX_FORMAT } from "../src/engine/handlers/formats.js";
import { createPromptLibrary } from "../src/engine/prompts.js";
import { Registry } from "../src/findings/registry.js";
import { renderFindingsWithin, renderPriorWithin } from "../src/findings/render.js";
import { syntheticFindings } from "../src/findings/synthetic.js";
import { type BenchResult, repoRoot } from "./util.js";

/** Issue 10 (c): the fix prompt at cycle 10 ≤ 1.2× cycle 2, with 5,000 resolved findings. */
export const PROMPT_TARGET = 1.2;
const CYCLES = 10;
const OPEN = 40;

function seededRegistry(resolved: number): Registry {
  let t = 0;
  const reg = Registry.load("t-bench", [], { blockingSeverity: "P1", now: () => ++t });
  const raws = syntheticFindings(resolved * 2 + OPEN * 2, Math.max(20, resolved / 10), 3);
  for (let i = 0; i < raws.length; i += 500)
    reg.addFindings(raws.slice(i, i + 500), { source: "review:code", cycle: 0 });
  const all = reg.all();
  const resolve = all
    .slice(0, Math.max(0, all.length - OPEN))
    .map((f) => ({ id: f.id, status: "resolved" as const }));
  reg.applyPrior(resolve, { source: "review:code", cycle: 0, expectedIds: [] });
  return reg;
}

/**
 * Ten fix cycles over a registry that already holds `resolved` resolved findings: each cycle the
 * reviewer resolves a few, raises a few new ones, and the fixer defers the rest with a reason, so
 * attempts pile up. The fix prompt is the real template filled the way the fix stage fills it.
 */
export async function benchPromptBytes(resolved = 5_000): Promise<BenchResult[]> {
  const prompts = createPromptLibrary(repoRoot(), join(repoRoot(), "prompts"));
  const reg = seededRegistry(resolved);
  const fresh: RawFinding[] = syntheticFindings(CYCLES * 4, 7, 11);
  const fixBytes: number[] = [];
  const reviewBytes: number[] = [];
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const render = (section: string) =>
      prompts.render("fix", {
        task_id: "t-bench",
        title: "Long-running task",
        prompt: "Keep the service correct.",
        cycle: String(cycle),
        outstanding_findings: section,
        output_format: FIX_FORMAT,
      });
    const rest = Buffer.byteLength(await render(""));
    const outstanding = reg.forFix();
    const section = renderFindingsWithin(Math.min(DEFAULT_PROMPT_BUDGET - rest, 6000 * 4), outstanding, {
      blockingSeverity: "P1",
      taskId: "t-bench",
      resolvedIds: reg.resolvedIds(),
      budgetKey: "defaults prompt-budget",
    });
    fixBytes.push(Buffer.byteLength(await render(section.text)));
    const prior = renderPriorWithin(DEFAULT_PROMPT_BUDGET / 2, reg.forReview(), {
      blockingSeverity: "P1",
      taskId: "t-bench",
      raisedBy: "review:code",
      resolvedIds: reg.resolvedIds(),
      budgetKey: "defaults prompt-budget",
    });
    reviewBytes.push(Buffer.byteLength(prior.text));
    const omitted = new Set(section.omitted);
    const shown = outstanding.filter((f: Finding) => !omitted.has(f.id)).map((f) => f.id);
    reg.applyFixReport(
      {
        summary: "",
        entries: shown.map((id) => ({
          id,
          status: "deferred" as const,
          justification: `needs the storage migration scheduled in ticket ${cycle + 40}`,
        })),
      },
      { cycle, commitSha: null, shownIds: shown },
    );
    const settle = prior.shown.slice(0, 3).map((id) => ({ id, status: "resolved" as const }));
    reg.applyPrior(settle, { source: "review:code", cycle, expectedIds: prior.shown });
    reg.addFindings(fresh.slice(cycle * 4 - 4, cycle * 4), { source: "review:code", cycle });
  }
  const ratio = (fixBytes[CYCLES - 1] ?? 0) / (fixBytes[1] ?? 1);
  const kib = (xs: number[]) => xs.map((b, i) => `c${i + 1} ${(b / 1024).toFixed(1)}`).join(", ");
  return [
    {
      name: `fix prompt at cycle 10 ÷ cycle 2, ${resolved.toLocaleString("en")} resolved findings in the registry`,
      value: ratio,
      unit: "×",
      budget: `≤ ${PROMPT_TARGET}×`,
      ok: ratio <= PROMPT_TARGET,
      detail: `fix prompt KiB per cycle: ${kib(fixBytes)}; reviewer's earlier-findings section KiB: ${kib(reviewBytes)}; ${OPEN} open findings deferred every cycle, 4 new and 3 resolved per cycle`,
    },
  ];
}
