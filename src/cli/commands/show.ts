import type { Command } from "commander";
import { showTask } from "../../app/show.js";
import { totalTokens } from "../../domain/types.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { cycleLine, cycleSummaries } from "../render/cycles.js";
import { findingsTable } from "../render/findings-table.js";
import { elapsed, money } from "../render/format.js";
import { findingJson, runJson, stageJson, taskJson } from "../render/json.js";
import { reviewersTable } from "./reviewers.js";

export function registerShow(program: Command, io: Io): void {
  program
    .command("show")
    .description(
      "the task: runs, stage timeline with outcomes, durations, tokens and cost; the findings registry; artifacts",
    )
    .argument("<id>", "task id (t-29 or 29)")
    .option("--json", "print JSON (docs/cli.md)")
    .action(async (ref: string, opts: { json?: boolean }) => {
      const d = await withContext(io, (ctx) => showTask(ctx, ref));
      const { task, runs, stages, findings, events } = d;
      const reviews = d.reviewArtifacts;
      const cost = d.totals.costUsd;
      const tokens = d.totals.tokens;
      const summaries = cycleSummaries(events);
      if (opts.json) {
        printJson(io, {
          task: { ...taskJson({ ...task, costUsd: cost, tokens }), notes: task.notes },
          runs: runs.map(runJson),
          stages: stages.map(stageJson),
          findings: findings.map(findingJson),
          cycles: summaries,
          reviewers: d.reviewers,
          artifacts: { reviews },
          totals: { cost_usd: cost, tokens },
        });
        return;
      }
      const out: string[] = [];
      out.push(`${task.id}  ${task.type}  ${task.title}`);
      out.push(
        `  status ${task.status}${task.finalVerdict ? `  ·  ${task.finalVerdict}` : ""}${task.reason ? `  ·  ${task.reason}` : ""}`,
      );
      out.push(`  workflow ${task.workflow}  ·  base ${task.baseBranch}  ·  branch ${task.branch ?? "-"}`);
      if (task.worktreePath) out.push(worktreeLine(task.id, task.worktreePath, d.worktreeInThisClone));
      if (task.priority !== 0) out.push(`  priority ${task.priority}`);
      if (task.notes) out.push(`  notes ${task.notes.replace(/\n/g, "\n        ")}`);
      out.push(`  cost ${money(cost)}  ·  ${tokens} tokens`);
      out.push("", "Runs:");
      const runCosts = new Map<number, number>();
      for (const s of stages) runCosts.set(s.runId, (runCosts.get(s.runId) ?? 0) + s.costUsd);
      for (const r of runs)
        out.push(
          `  run ${r.id} (${r.kind}) ${r.status}  ${money(runCosts.get(r.id) ?? 0)}${r.finalVerdict ? ` ${r.finalVerdict}` : ""}${r.reason ? ` — ${r.reason}` : ""}`,
        );
      out.push("", "Timeline:");
      for (const s of stages) {
        const dur = elapsed(s.endedAt - s.startedAt);
        const tok = totalTokens(s.usage);
        out.push(
          `  [${s.cycle}] ${s.stageId.padEnd(18)} ${s.outcome.padEnd(15)} ${dur.padStart(6)}  ${tok ? `${tok} tok ` : ""}${s.costUsd ? money(s.costUsd) : ""}${s.summary ? `  ${s.summary}` : ""}${s.failureReason && s.outcome === "fail" ? `  (${s.failureReason})` : ""}`.trimEnd(),
        );
      }
      if (summaries.length) {
        out.push("", "Cycles:");
        for (const s of summaries) out.push(`  ${cycleLine(s)}`);
      }
      out.push("", "Findings:");
      out.push(findingsTable(findings).trimEnd());
      if (d.reviewers.length) {
        out.push("", "Reviewers:", reviewersTable(d.reviewers).trimEnd().replace(/^/gm, "  "));
      }
      if (reviews.length) out.push("", "Review artifacts:", ...reviews.map((p) => `  ${p}`));
      io.out(`${out.join("\n")}\n`);
    });
}

/** The worktree, marked when it is another clone's (the task last ran on another machine). */
function worktreeLine(id: string, path: string, inThisClone: boolean): string {
  if (inThisClone) return `  worktree ${path}`;
  return `  worktree ${path}  (another clone's; \`fixpoint diff ${id}\` and \`fixpoint checkout ${id}\` read the branch here)`;
}
