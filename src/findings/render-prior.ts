import type { Finding, Severity } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { withEnvReadOnce } from "../util/redact.js";
import { fenceUntrusted, oneLine } from "./fence.js";
import { countsBySeverity, rankFindings } from "./ranked.js";
import { lines, safePath } from "./render-finding.js";
import { byteSize, resolvedLine } from "./select.js";

export const PRIOR_HEADING = "## Findings from earlier cycles";

const INSTRUCTIONS =
  "Give every id below a status in `prior`: `resolved` (the problem is gone in the current code), " +
  "`still_open` (it is not; say why in `note`) or `not_applicable` (it was never a real problem; say why). " +
  "A `fixed` status is only the fixer's claim: check it against the diff.";
const FENCE_LABEL = "Earlier findings (id | severity | status | place | title)";

/** What the fixer last said about a finding, in one line. */
function lastClaim(f: Finding): string {
  const a = f.attempts.at(-1);
  if (!a) return "no fix attempt yet";
  return `cycle ${a.cycle}, ${a.status}: ${oneLine(a.justification, 240) || "(none)"}`;
}

function row(f: Finding): string {
  const place = f.file === null ? "(no file)" : `${safePath(f.file)}${lines(f) ? `:${lines(f)}` : ""}`;
  return `${f.id} | ${f.severity} | ${f.status} | ${place} | ${oneLine(f.title, 200)}\n    last fixer claim: ${lastClaim(f)}`;
}

function compose(rows: string[], tail: string[]): string {
  return [
    PRIOR_HEADING,
    "",
    INSTRUCTIONS,
    "",
    fenceUntrusted(FENCE_LABEL, rows.join("\n")),
    ...tail,
    "",
  ].join("\n");
}

/**
 * The list a reviewer must answer in `prior` (SPEC §7): one line per finding with its id,
 * severity, status, place and title, and the fixer's last claim. Titles and claims are untrusted,
 * so the whole list sits in one fence. Empty string when there is nothing to ask about.
 */
export function renderPriorForReview(findings: Finding[]): string {
  if (findings.length === 0) return "";
  return withEnvReadOnce(() => compose(findings.map(row), []));
}

export interface PriorWithinOptions {
  blockingSeverity: Severity;
  taskId: string;
  /** `review:<stage>` of the reviewer the prompt is for. */
  raisedBy?: string;
  resolvedIds?: readonly string[];
  budgetKey: string;
}

/**
 * `renderPriorForReview` within `budgetBytes`: rows in priority order (blocking, then this
 * reviewer's, then the rest), the longest prefix that fits; the rest named by count with the
 * command that shows them, resolved findings as a count and ids. `shown` is what the reviewer is
 * asked about, so only those count as omitted when it skips one. Throws FixpointError("config")
 * naming `budgetKey` when not even one row fits.
 */
export function renderPriorWithin(
  budgetBytes: number,
  findings: readonly Finding[],
  opts: PriorWithinOptions,
): { text: string; shown: string[] } {
  return withEnvReadOnce(() => priorWithin(budgetBytes, findings, opts));
}

function priorWithin(
  budgetBytes: number,
  findings: readonly Finding[],
  opts: PriorWithinOptions,
): { text: string; shown: string[] } {
  const resolved = resolvedLine(opts.resolvedIds ?? [], opts.taskId);
  if (findings.length === 0) return { text: resolved ? `${resolved}\n` : "", shown: [] };
  const ranked = rankFindings(findings, opts.blockingSeverity, opts.raisedBy);
  const all = ranked.findings;
  // What is not listed: the findings from the n-th on.
  const leftOut = (n: number) =>
    n >= all.length
      ? []
      : [
          "",
          `Not listed, to fit the prompt budget: ${countsBySeverity(ranked, n)}. Give no status for them this cycle; \`fixpoint findings ${opts.taskId}\` lists them all.`,
        ];
  const tail = (n: number) => [...leftOut(n), ...(resolved ? ["", resolved] : [])];
  // Everything but the rows, with the "not listed" line at its largest; a fence can grow by a
  // few backticks, hence the slack.
  const fixed = byteSize(compose([], tail(0))) + 16;
  const rows: string[] = [];
  let total = fixed;
  for (const f of all) {
    const r = row(f);
    const cost = byteSize(r) + 1;
    if (total + cost > budgetBytes) break;
    total += cost;
    rows.push(r);
  }
  for (let n = rows.length; n > 0; n--) {
    const text = compose(rows.slice(0, n), tail(n));
    if (byteSize(text) <= budgetBytes) return { text, shown: all.slice(0, n).map((f) => f.id) };
  }
  const first = all[0];
  throw new FixpointError(
    "config",
    `the prompt budget leaves ${budgetBytes} bytes for earlier findings, less than one needs (${first?.id ?? "?"}: about ${fixed + (first ? byteSize(row(first)) : 0)} bytes); raise \`${opts.budgetKey}\``,
  );
}
