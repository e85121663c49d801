import type { Command } from "commander";
import { type ReviewerRow, type ReviewersDeps, reviewerStats } from "../../app/reviewers.js";
import { FixpointError } from "../../errors.js";
import { parseDuration } from "../../util/duration.js";
import { loadWorkflow } from "../../workflow/loader.js";
import type { Workflow } from "../../workflow/types.js";
import { type Io, printJson } from "../io.js";
import { openProject, type Project } from "../project.js";
import { pad } from "../render/format.js";

export function registerReviewers(program: Command, io: Io): void {
  program
    .command("reviewers")
    .description("each reviewer's findings (confirmed, refuted, dismissed, duplicates, open) and cost")
    .option("--since <date>", "only findings and reviews since this date (2026-11-01) or this long ago (7d)")
    .option("--json", "print JSON: one object per reviewer (docs/cli.md)")
    .action(async (opts: { since?: string; json?: boolean }) => {
      const since = opts.since === undefined ? undefined : parseSince(opts.since, Date.now());
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const rows = await reviewerStats(reviewersDeps(project), since === undefined ? {} : { since });
        if (opts.json) printJson(io, rows);
        else io.out(reviewersTable(rows));
      } finally {
        await project.close();
      }
    });
}

/** `2026-11-01`, a full ISO time, or a duration back from now (`7d`, `12h`). Exit 2 otherwise. */
export function parseSince(text: string, now: number): number {
  const ago = parseDuration(text);
  if (ago !== null && ago > 0) return now - ago;
  const at = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? Date.parse(text)
    : Number.NaN;
  if (Number.isNaN(at)) {
    throw new FixpointError("usage", `--since: not a date or a duration: ${text} (e.g. 2026-11-01 or 7d)`);
  }
  return at;
}

/** The store, and each review stage's agent and model from the task's workflow and the config. */
export function reviewersDeps(project: Project): ReviewersDeps {
  const workflows = new Map<string, Promise<Workflow | null>>();
  const workflow = (name: string): Promise<Workflow | null> => {
    let hit = workflows.get(name);
    if (!hit) {
      // A workflow that no longer loads leaves the agent unknown; the figures stand.
      hit = loadWorkflow(name, project.root).catch(() => null);
      workflows.set(name, hit);
    }
    return hit;
  };
  return {
    store: project.store,
    agentOf: async (task, stageId) => {
      const stage = (await workflow(task.workflow))?.stages.get(stageId);
      const role = stage?.agent ?? "reviewer";
      const agent = task.agents[role] ?? role;
      return { agent, model: project.config.agents[agent]?.model ?? null };
    },
  };
}

export function reviewersTable(rows: ReviewerRow[]): string {
  if (rows.length === 0) return "No reviewer has reported a finding or run a review yet.\n";
  const head = [
    "reviewer",
    "agent",
    "model",
    "raised",
    "confirmed",
    "refuted",
    "dismissed",
    "dup",
    "open",
    "cost",
    "per confirmed",
  ];
  const body = rows.map((r) => [
    r.reviewer,
    r.agent ?? "-",
    r.model ?? "-",
    String(r.raised),
    String(r.confirmed),
    String(r.refuted),
    String(r.dismissed),
    String(r.duplicates),
    String(r.open),
    `$${r.cost_usd.toFixed(4)}`,
    r.cost_per_confirmed_usd === null ? "-" : `$${r.cost_per_confirmed_usd.toFixed(4)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[line(head), ...body.map(line)].join("\n")}\n`;
}
