import type { StoredReviewIssue } from "../../domain/types.js";
import { fenceUntrusted } from "../../findings/fence.js";

/** The resume follow-up (seed 002): exactly the stored blocking findings, most severe first. */
export function renderFollowup(issues: StoredReviewIssue[]): string {
  const sorted = [...issues].sort((a, b) => a.severity.localeCompare(b.severity) || a.id.localeCompare(b.id));
  const lines = ["## Outstanding Review Findings (from the last review before this resume)", ""];
  for (const i of sorted) {
    const where = i.file
      ? `${i.file}:${i.lineStart}${i.lineEnd !== i.lineStart ? `-${i.lineEnd}` : ""}`
      : "(no file)";
    lines.push(`### ${i.id} [${i.severity}] ${where} (raised by ${i.reviewer})`);
    lines.push(fenceUntrusted(`finding ${i.id}`, `${i.title}\n\n${i.body}`));
    lines.push("");
  }
  return lines.join("\n");
}
