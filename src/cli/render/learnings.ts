import type { Learning } from "../../domain/types.js";
import { oneLine } from "../../findings/fence.js";
import { columnWidths, pad } from "./format.js";

/** One learning as `fixpoint learnings --json` prints it (docs/cli.md): snake_case, ISO times. */
export function learningJson(l: Learning) {
  return {
    id: l.id,
    text: l.text,
    scope: l.scope,
    source: {
      kind: l.source.kind,
      task: l.source.taskId ?? null,
      finding: l.source.findingId ?? null,
      author: l.source.author ?? null,
    },
    origin:
      l.origin === null
        ? null
        : {
            file: l.origin.file,
            line_start: l.origin.lineStart,
            line_end: l.origin.lineEnd,
            title: l.origin.title,
            severity: l.origin.severity,
          },
    created_at: new Date(l.createdAt).toISOString(),
    created_by: l.createdBy,
    hits: l.hits,
    last_hit_at: l.lastHitAt === null ? null : new Date(l.lastHitAt).toISOString(),
    removed_at: l.removedAt === null ? null : new Date(l.removedAt).toISOString(),
  };
}

/** `L-1  src/lib/**  dismissed t-3 F-2  2 hits  inputs are validated at the boundary` per line. */
export function learningsTable(learnings: readonly Learning[]): string {
  if (learnings.length === 0) {
    return 'No learnings yet. `fixpoint findings dismiss <task> <id> --reason "…"` or `fixpoint learnings add "…"` records one.\n';
  }
  const rows = learnings.map((l) => [
    l.id,
    l.scope ?? "(repository)",
    [l.source.kind, l.source.taskId, l.source.findingId, l.source.author].filter(Boolean).join(" "),
    `${l.hits} hit${l.hits === 1 ? "" : "s"}`,
    oneLine(l.text, 100),
  ]);
  const widths = columnWidths(rows, 4);
  return `${rows.map((r) => r.map((c, i) => (i < 4 ? pad(c, widths[i] ?? 0) : c)).join("  ")).join("\n")}\n`;
}
