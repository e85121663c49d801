import type { FinalVerdict, Finding, Severity } from "../domain/types.js";
import { isActiveFinding } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";
import { byId } from "./registry-core.js";
import { isBlocking } from "./severity.js";

/** A finding reopened this many times means the loop is going round in circles. */
export const REOPEN_LIMIT = 2;

/**
 * SPEC §9 NO_PROGRESS: open blocking findings did not decrease over the last two cycles
 * (h[n] ≥ h[n-1] ≥ h[n-2], so three samples are needed), or some finding was reopened twice.
 */
export function noProgress(blockingHistory: number[], maxTimesReopened: number): boolean {
  if (maxTimesReopened >= REOPEN_LIMIT) return true;
  const n = blockingHistory.length;
  if (n < 3) return false;
  const [a, b, c] = blockingHistory.slice(-3) as [number, number, number];
  return c >= b && b >= a;
}

export interface ReasonInput {
  findings: Finding[];
  blockingSeverity: Severity;
  /** Fix cycles run. */
  cycles: number;
  blockingHistory: number[];
  /** Extra words for verdicts the registry cannot explain (budget, errors, a reviewer's ask). */
  detail?: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function idList(fs: Finding[], max = 6): string {
  const ids = fs.map((f) => f.id);
  return ids.length <= max ? ids.join(", ") : `${ids.slice(0, max).join(", ")}, +${ids.length - max} more`;
}

/** What the last attempt on a blocked finding said, reduced to the accepted reason. */
function blockedWhy(f: Finding): string {
  const j = f.attempts.at(-1)?.justification ?? "blocked";
  const reason = redactSecrets(j.split(":")[0]?.trim() ?? j);
  return reason.length > 80 ? `${reason.slice(0, 79)}…` : reason;
}

/** One line a person can act on, for the task's final verdict (SPEC §9). */
export function finalReason(verdict: FinalVerdict, input: ReasonInput): string {
  const blocking = input.findings.filter((f) => isBlocking(f.severity, input.blockingSeverity)).sort(byId);
  const live = blocking.filter((f) => isActiveFinding(f.status));
  const cycles = plural(input.cycles, "fix cycle");
  const tail = input.detail ? `: ${input.detail}` : "";
  switch (verdict) {
    case "APPROVED":
      return `approved after ${cycles}`;
    case "APPROVED_WITH_FOLLOWUPS": {
      const rest = input.findings
        .filter((f) => isActiveFinding(f.status) || f.status === "blocked")
        .sort(byId);
      return `approved after ${cycles}; ${plural(rest.length, "non-blocking finding")} left as follow-ups${rest.length ? ` (${idList(rest)})` : ""}`;
    }
    case "MAX_CYCLES_REACHED":
      return `${plural(live.length, "blocking finding")} still open after ${cycles}${live.length ? ` (${idList(live)})` : ""}`;
    case "BLOCKED": {
      const blocked = blocking.filter((f) => f.status === "blocked");
      const shown = blocked.slice(0, 3).map((f) => `${f.id}: ${blockedWhy(f)}`);
      const more = blocked.length > 3 ? `; +${blocked.length - 3} more` : "";
      return `every remaining blocking finding is blocked (${shown.join("; ")}${more})`;
    }
    case "NO_PROGRESS": {
      const reopened = input.findings.filter((f) => f.timesReopened >= REOPEN_LIMIT).sort(byId);
      const first = reopened[0];
      if (first)
        return `no progress: ${first.id} was reopened ${first.timesReopened} times${reopened.length > 1 ? ` (also ${idList(reopened.slice(1))})` : ""}`;
      return `no progress: open blocking findings ${input.blockingHistory.slice(-3).join(" → ")} over the last two cycles`;
    }
    case "NEEDS_DISCUSSION":
      return `a reviewer asked for a human decision${tail}`;
    case "BUDGET_EXHAUSTED":
      return `the task's budget ran out after ${cycles}${tail}`;
    case "CHANGES_REQUESTED":
      return `stopped before the reviewers approved${tail}`;
  }
}
