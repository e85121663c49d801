import type { Command } from "commander";
import { listReviewers, type ReviewerRow } from "../../app/reviewers.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { columnWidths, pad } from "../render/format.js";

export function registerReviewers(program: Command, io: Io): void {
  program
    .command("reviewers")
    .description("each reviewer's findings (confirmed, refuted, dismissed, duplicates, open) and cost")
    .option("--since <date>", "only findings and reviews since this date (2026-11-01) or this long ago (7d)")
    .option("--json", "print JSON: one object per reviewer (docs/cli.md)")
    .action(async (opts: { since?: string; json?: boolean }) => {
      const rows = await withContext(io, (ctx) => listReviewers(ctx, { since: opts.since }));
      if (opts.json) printJson(io, rows);
      else io.out(reviewersTable(rows));
    });
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
  const widths = columnWidths([head, ...body], head.length);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[line(head), ...body.map(line)].join("\n")}\n`;
}
