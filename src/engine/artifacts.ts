import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ReviewOutput, ReviewVerdict } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";

/** `.fixpoint/reviews/<task>-review-<cycle>.md`: every reviewer of that cycle, with verdicts and findings. */
export function reviewArtifactPath(dir: string, taskId: string, cycle: number): string {
  return join(dir, `${taskId}-review-${cycle}.md`);
}

/**
 * Adds (or replaces, when a stage ran again after a crash) one reviewer's section. Sections are
 * kept in the order they were first written — the executor writes them in declaration order.
 * Written to a temporary name and renamed, so a reader never sees half a file.
 */
export async function writeReviewSection(
  dir: string,
  taskId: string,
  cycle: number,
  stageId: string,
  output: ReviewOutput,
  verdict: ReviewVerdict | null,
): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = reviewArtifactPath(dir, taskId, cycle);
  const existing = await readFile(path, "utf8").catch(() => `# Review of ${taskId}, cycle ${cycle}\n`);
  const marker = `<!-- stage:${stageId} -->`;
  const section = `${marker}\n${renderSection(stageId, output, verdict)}<!-- /stage:${stageId} -->\n`;
  const start = existing.indexOf(marker);
  const endMarker = `<!-- /stage:${stageId} -->\n`;
  const next =
    start >= 0
      ? existing.slice(0, start) +
        section +
        existing.slice(existing.indexOf(endMarker, start) + endMarker.length)
      : `${existing}\n${section}`;
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, redactSecrets(next), { mode: 0o600 });
  await rename(tmp, path);
  return path;
}

function renderSection(stageId: string, output: ReviewOutput, verdict: ReviewVerdict | null): string {
  const lines = [
    `## ${stageId}`,
    "",
    `**Verdict: ${verdict ?? output.verdict}**`,
    "",
    output.summary.trim(),
    "",
  ];
  if (output.findings.length) {
    lines.push("### Findings", "");
    for (const f of output.findings) {
      const where = f.file
        ? ` \`${f.file}${f.lineStart ? `:${f.lineStart}${f.lineEnd && f.lineEnd !== f.lineStart ? `-${f.lineEnd}` : ""}` : ""}\``
        : "";
      lines.push(`- **${f.severity}** [${f.category}] ${f.title}${where}`);
      if (f.body) lines.push(`  ${f.body.replace(/\n/g, "\n  ")}`);
      if (f.suggestedFix) lines.push(`  Suggested fix: ${f.suggestedFix.replace(/\n/g, "\n  ")}`);
    }
    lines.push("");
  }
  if (output.prior.length) {
    lines.push("### Earlier findings", "");
    for (const p of output.prior) lines.push(`- ${p.id}: ${p.status}${p.note ? ` — ${p.note}` : ""}`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}
