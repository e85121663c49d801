import type { Finding } from "../domain/types.js";
import { fenceUntrusted, oneLine } from "./fence.js";
import { lines, safePath } from "./render-finding.js";

export const PRIOR_HEADING = "## Findings from earlier cycles";

/** What the fixer last said about a finding, in one line. */
function lastClaim(f: Finding): string {
  const a = f.attempts.at(-1);
  if (!a) return "no fix attempt yet";
  return `cycle ${a.cycle}, ${a.status}: ${oneLine(a.justification, 240) || "(none)"}`;
}

/**
 * The list a reviewer must answer in `prior` (SPEC §7): one line per finding with its id,
 * severity, status, place and title, and the fixer's last claim. Titles and claims are untrusted,
 * so the whole list sits in one fence. Empty string when there is nothing to ask about.
 */
export function renderPriorForReview(findings: Finding[]): string {
  if (findings.length === 0) return "";
  const rows = findings.map((f) => {
    const place = f.file === null ? "(no file)" : `${safePath(f.file)}${lines(f) ? `:${lines(f)}` : ""}`;
    return `${f.id} | ${f.severity} | ${f.status} | ${place} | ${oneLine(f.title, 200)}\n    last fixer claim: ${lastClaim(f)}`;
  });
  return [
    PRIOR_HEADING,
    "",
    "Give every id below a status in `prior`: `resolved` (the problem is gone in the current code), " +
      "`still_open` (it is not; say why in `note`) or `not_applicable` (it was never a real problem; say why). " +
      "A `fixed` status is only the fixer's claim: check it against the diff.",
    "",
    fenceUntrusted("Earlier findings (id | severity | status | place | title)", rows.join("\n")),
    "",
  ].join("\n");
}
