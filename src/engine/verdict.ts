import type { FinalVerdict, ReviewVerdict, Severity } from "../domain/types.js";
import { FINAL_VERDICTS, isActiveFinding } from "../domain/types.js";
import { noProgress, REOPEN_LIMIT } from "../findings/convergence.js";
import type { Registry } from "../findings/registry.js";
import { isBlocking } from "../findings/severity.js";
import type { RunState } from "./state.js";

/** The verdict of the current cycle: the most serious of the reviewers' verdicts. */
export function cycleVerdict(state: Pick<RunState, "verdicts">): ReviewVerdict | null {
  const vs = Object.values(state.verdicts);
  if (vs.length === 0) return null;
  if (vs.includes("NEEDS_DISCUSSION")) return "NEEDS_DISCUSSION";
  if (vs.includes("CHANGES_REQUESTED")) return "CHANGES_REQUESTED";
  if (vs.includes("APPROVED_WITH_FOLLOWUPS")) return "APPROVED_WITH_FOLLOWUPS";
  return "APPROVED";
}

/**
 * The final verdict when a run reaches an exit stage (SPEC §9). An exit may force one; else it is
 * derived from the run state and the registry, most specific reason first.
 */
export function deriveFinalVerdict(
  state: RunState,
  registry: Registry,
  opts: {
    forced?: string;
    forcedReason?: string;
    maxCycles: number;
    followups: boolean;
    blockingSeverity: Severity;
  },
): { verdict: FinalVerdict; reason: string } {
  const blockingIds = registry
    .all()
    .filter((f) => isBlocking(f.severity, opts.blockingSeverity) && isActiveFinding(f.status))
    .map((f) => f.id);
  const list = blockingIds.length
    ? ` (${blockingIds.slice(0, 8).join(", ")}${blockingIds.length > 8 ? ", …" : ""})`
    : "";
  const forced =
    opts.forced && (FINAL_VERDICTS as readonly string[]).includes(opts.forced)
      ? (opts.forced as FinalVerdict)
      : null;
  const cv = cycleVerdict(state);
  const done = state.cycle - state.cycleBase;
  const cycles = `${done} fix cycle${done === 1 ? "" : "s"}`;

  if (forced === "NEEDS_DISCUSSION" || (!forced && cv === "NEEDS_DISCUSSION")) {
    return {
      verdict: "NEEDS_DISCUSSION",
      reason: (forced && opts.forcedReason) || "a reviewer asked for a human decision; read the last review",
    };
  }
  if (forced) return { verdict: forced, reason: opts.forcedReason ?? `workflow exit chose ${forced}` };

  // A blocking finding the fixer blocked (or the system did: file deleted) belongs to a human now:
  // the reviewers having nothing left to say about the rest is not an approval.
  if (registry.allBlocked()) {
    return {
      verdict: "BLOCKED",
      reason: `every remaining blocking finding is blocked${blockedList(registry, opts.blockingSeverity)}`,
    };
  }
  if (blockingIds.length === 0 && state.gatesPassed !== false && state.failedReviews.length === 0) {
    const nonBlocking = registry.all().filter((f) => isActiveFinding(f.status)).length;
    if (nonBlocking > 0 && opts.followups) {
      return {
        verdict: "APPROVED_WITH_FOLLOWUPS",
        reason: `approved after ${cycles}; ${nonBlocking} non-blocking finding${nonBlocking === 1 ? "" : "s"} left as follow-ups`,
      };
    }
    return { verdict: "APPROVED", reason: `approved after ${cycles}` };
  }
  if (noProgress(state.blockingHistory, registry.maxTimesReopened())) {
    return { verdict: "NO_PROGRESS", reason: noProgressReason(state, registry, list) };
  }
  if (state.failedReviews.length > 0 && blockingIds.length === 0) {
    return {
      verdict: "MAX_CYCLES_REACHED",
      reason: `review ${state.failedReviews.join(", ")} could not be completed after ${cycles}`,
    };
  }
  if (state.gatesPassed === false && blockingIds.length === 0) {
    return { verdict: "MAX_CYCLES_REACHED", reason: `gates still failing after ${cycles}` };
  }
  return {
    verdict: "MAX_CYCLES_REACHED",
    reason: `${blockingIds.length} blocking finding${blockingIds.length === 1 ? "" : "s"} still open after ${cycles}${list}`,
  };
}

/**
 * Names exactly what did not progress: the findings reopened REOPEN_LIMIT times or more (not
 * every open one), else the open blocking ones whose count did not decrease; and any reviewer
 * whose output could not be parsed, since its silence may be why nothing moved.
 */
function noProgressReason(state: RunState, registry: Registry, openList: string): string {
  const reopened = registry
    .all()
    .filter((f) => f.timesReopened >= REOPEN_LIMIT)
    .map((f) => f.id);
  const head =
    reopened.length > 0
      ? `no progress: ${reopened.length === 1 ? "finding" : "findings"} ${reopened.join(", ")} reopened ${REOPEN_LIMIT}+ times`
      : `no progress: open blocking findings ${state.blockingHistory.slice(-3).join(" → ")} over the last two cycles${openList}`;
  const unparsed = state.failedReviews;
  return unparsed.length > 0
    ? `${head}; no usable output from ${unparsed.length === 1 ? "reviewer" : "reviewers"} ${unparsed.join(", ")}`
    : head;
}

function blockedList(registry: Registry, threshold: Severity): string {
  const blocked = registry.all().filter((f) => f.status === "blocked" && isBlocking(f.severity, threshold));
  const first = blocked[0];
  if (!first) return "";
  const why = first.attempts.at(-1)?.justification ?? "blocked";
  return ` (${first.id}: ${why}${blocked.length > 1 ? `; +${blocked.length - 1} more` : ""})`;
}
