import type { Finding } from "../../domain/types.js";
import { withEnvReadOnce } from "../../util/redact.js";
import { columnWidths, pad, truncate } from "./format.js";

/**
 * The registry as a table: id, severity, status, file:line, title, attempts, last justification.
 * Every cell is redacted against one reading of the environment: read per cell, it was half of
 * `fixpoint findings` at 20,000 findings (0.8 of 1.8 s).
 */
export function findingsTable(findings: readonly Finding[]): string {
  if (findings.length === 0) return "  (no findings)\n";
  return withEnvReadOnce(() => table(findings));
}

function table(findings: readonly Finding[]): string {
  const rows = findings.map((f) => {
    const where = f.file ? `${f.file}${f.lineStart ? `:${f.lineStart}` : ""}` : "-";
    const last = f.attempts.at(-1);
    const just = last ? `${last.status}: ${last.rejection ?? last.justification}` : "";
    return [
      f.id,
      f.severity,
      f.status,
      truncate(where, 28),
      truncate(f.title, 44),
      String(f.attempts.length),
      truncate(just, 60),
    ];
  });
  const header = ["ID", "SEV", "STATUS", "FILE:LINE", "TITLE", "ATT", "LAST JUSTIFICATION"];
  const widths = columnWidths([header, ...rows], header.length);
  const fmt = (r: string[]) =>
    `  ${r
      .map((c, i) => pad(c, widths[i] ?? 0))
      .join("  ")
      .trimEnd()}`;
  return `${[fmt(header), ...rows.map(fmt)].join("\n")}\n`;
}

/** Each finding's history (`findings --history`), one environment reading for them all. */
export function findingsHistory(findings: readonly Finding[]): string {
  return withEnvReadOnce(() => findings.map(findingHistory).join("\n"));
}

/** One finding's history: who raised it, and each fix attempt. */
function findingHistory(f: Finding): string {
  const lines = [
    `  ${f.id} [${f.severity}] ${f.title} — ${f.status}${f.timesReopened ? ` (reopened ${f.timesReopened}×)` : ""}`,
  ];
  lines.push(`      raised by ${f.sources.map((s) => `${s.source} (cycle ${s.cycle})`).join(", ")}`);
  for (const a of f.attempts) {
    lines.push(
      `      cycle ${a.cycle}: fixer said ${a.status}${a.justification ? ` — ${truncate(a.justification, 90)}` : ""}${a.commitSha ? ` [${a.commitSha.slice(0, 8)}]` : ""}${a.rejection ? ` (rejected: ${a.rejection})` : ""}`,
    );
  }
  return lines.join("\n");
}
