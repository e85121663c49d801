import type { FixReport, RawFinding, ReviewOutput, ReviewVerdict, Severity } from "../domain/types.js";
import { effectiveVerdict } from "../findings/review-parse.js";
import type { Registry } from "../findings/registry.js";
import type { RunState } from "./state.js";

/**
 * What a stage did to the task's accounts, as plain data. Handlers return effects; the executor
 * applies them to the registry and the run state in a fixed order (declaration order for the
 * children of a parallel stage), so the result never depends on completion order and a parallel
 * stage interrupted half-way can be finished from its checkpoint.
 */
export type Effect =
  | { type: "none" }
  | { type: "review"; stageId: string; output: ReviewOutput; expectedIds: string[]; head: string | null; failed?: boolean }
  | { type: "gates"; results: GateResultData[] }
  | { type: "fix"; report: FixReport | null; shownIds: string[]; commitSha: string | null; parseError?: string }
  | { type: "findings"; source: string; findings: RawFinding[] };

export interface GateResultData {
  name: string;
  passed: boolean;
  finding: RawFinding | null;
}

export interface AppliedEffect {
  /** Short human summary for the progress line, e.g. "2 findings (1 P1, 1 P2)". */
  summary: string | null;
  verdict: ReviewVerdict | null;
}

export function applyEffect(
  effect: Effect,
  registry: Registry,
  state: RunState,
  opts: { blockingSeverity: Severity },
): AppliedEffect {
  switch (effect.type) {
    case "none":
      return { summary: null, verdict: null };
    case "findings": {
      const r = registry.addFindings(effect.findings, { source: effect.source, cycle: state.cycle });
      return { summary: `${r.added.length} new, ${r.merged.length} merged, ${r.reopened.length} reopened`, verdict: null };
    }
    case "review":
      return applyReview(effect, registry, state, opts.blockingSeverity);
    case "gates": {
      for (const g of effect.results) {
        registry.applyGate(
          g.name,
          state.cycle,
          g.passed || !g.finding ? { passed: true } : { passed: false, finding: g.finding },
        );
      }
      state.gatesPassed = effect.results.every((g) => g.passed);
      const failed = effect.results.filter((g) => !g.passed).map((g) => g.name);
      const summary =
        effect.results.length === 0 ? "no gates" : failed.length === 0 ? "passed" : `failed: ${failed.join(", ")}`;
      return { summary, verdict: null };
    }
    case "fix": {
      if (!effect.report) {
        return { summary: `report unparsable: ${effect.parseError ?? "no report"}`, verdict: null };
      }
      const out = registry.applyFixReport(effect.report, {
        cycle: state.cycle,
        commitSha: effect.commitSha,
        shownIds: effect.shownIds,
      });
      const reported = effect.shownIds.length - out.missing.length;
      const parts = [`${out.fixed.length} fixed`];
      if (out.blocked.length) parts.push(`${out.blocked.length} blocked`);
      if (out.deferred.length) parts.push(`${out.deferred.length} deferred`);
      if (out.rejected.length) parts.push(`${out.rejected.length} rejected`);
      return { summary: `${reported}/${effect.shownIds.length} reported (${parts.join(", ")})`, verdict: null };
    }
  }
}

function applyReview(
  effect: Extract<Effect, { type: "review" }>,
  registry: Registry,
  state: RunState,
  blockingSeverity: Severity,
): AppliedEffect {
  const source = `review:${effect.stageId}`;
  const prior = registry.applyPrior(effect.output.prior, {
    source,
    cycle: state.cycle,
    expectedIds: effect.expectedIds,
  });
  registry.addFindings(effect.output.findings, { source, cycle: state.cycle });
  const verdict = effectiveVerdict(effect.output, blockingSeverity);
  if (effect.failed && !state.failedReviews.includes(effect.stageId)) state.failedReviews.push(effect.stageId);
  state.verdicts[effect.stageId] = verdict;
  if (effect.head) state.reviewedAt[effect.stageId] = effect.head;
  return { summary: reviewSummary(verdict, effect.output, prior.resolved.length), verdict };
}

/** `CHANGES_REQUESTED  2 findings (1 P1, 1 P2)`, `APPROVED  (2 resolved)`. */
export function reviewSummary(verdict: ReviewVerdict, output: ReviewOutput, resolved: number): string {
  const n = output.findings.length;
  const counts = countBySeverity(output.findings.map((f) => f.severity));
  const parts = [];
  if (n > 0) parts.push(`${n} finding${n === 1 ? "" : "s"} (${counts})`);
  if (resolved > 0) parts.push(`(${resolved} resolved)`);
  return `${verdict}  ${parts.join(" ")}`.trim();
}

export function countBySeverity(sevs: Severity[]): string {
  const order: Severity[] = ["P0", "P1", "P2", "P3"];
  return order
    .map((s) => [s, sevs.filter((x) => x === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
}
