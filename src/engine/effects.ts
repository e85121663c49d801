import type { FixReport, RawFinding, ReviewOutput, ReviewVerdict, Severity } from "../domain/types.js";
import type { Registry } from "../findings/registry.js";
import { effectiveVerdict } from "../findings/review-parse.js";
import type { VerifyVerdict } from "../findings/verify-parse.js";
import type { RunState } from "./state.js";

/**
 * What a stage did to the task's accounts, as plain data. Handlers return effects; the executor
 * applies them to the registry and the run state in a fixed order (declaration order for the
 * children of a parallel stage), so the result never depends on completion order and a parallel
 * stage interrupted half-way can be finished from its checkpoint.
 */
export type Effect =
  | { type: "none" }
  | {
      type: "review";
      stageId: string;
      output: ReviewOutput;
      expectedIds: string[];
      head: string | null;
      failed?: boolean;
    }
  | { type: "gates"; results: GateResultData[] }
  | {
      type: "fix";
      report: FixReport | null;
      shownIds: string[];
      commitSha: string | null;
      parseError?: string;
    }
  | {
      /** A verify stage's verdicts on incoming findings (refuted ones are dismissed). */
      type: "verify";
      stageId: string;
      verdicts: VerifyVerdict[];
    }
  | {
      type: "findings";
      source: string;
      findings: RawFinding[];
      /** Per finding, same order: its own source and author (a PR thread `pr:<id>`); default `source`. */
      origins?: { source: string; author?: string }[];
      /** Findings raised by these sources are resolved (threads resolved on GitHub). */
      resolvedSources?: string[];
    };

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
    case "findings":
      return applyFindings(effect, registry, state.cycle);
    case "verify": {
      const r = registry.applyVerification(effect.verdicts, {
        source: `verify:${effect.stageId}`,
        cycle: state.cycle,
      });
      return { summary: `${r.confirmed.length} confirmed, ${r.refuted.length} refuted`, verdict: null };
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
        effect.results.length === 0
          ? "no gates"
          : failed.length === 0
            ? "passed"
            : `failed: ${failed.join(", ")}`;
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
      return {
        summary: `${reported}/${effect.shownIds.length} reported (${parts.join(", ")})`,
        verdict: null,
      };
    }
  }
}

function applyFindings(
  effect: Extract<Effect, { type: "findings" }>,
  registry: Registry,
  cycle: number,
): AppliedEffect {
  const counts = { added: 0, merged: 0, reopened: 0 };
  const add = (raws: RawFinding[], source: { source: string; cycle: number; author?: string }) => {
    const r = registry.addFindings(raws, source);
    counts.added += r.added.length;
    counts.merged += r.merged.length;
    counts.reopened += r.reopened.length;
  };
  const origins = effect.origins;
  if (!origins) add(effect.findings, { source: effect.source, cycle });
  else
    effect.findings.forEach((raw, i) => {
      const o = origins[i];
      add(
        [raw],
        o
          ? { source: o.source, cycle, ...(o.author ? { author: o.author } : {}) }
          : { source: effect.source, cycle },
      );
    });
  const gone = new Set(effect.resolvedSources ?? []);
  // Resolved everywhere it was raised (e.g. the reviewer resolved their PR thread): settled. A
  // finding another source still raises stays as it is.
  const settled = registry
    .all()
    .filter(
      (f) =>
        gone.size > 0 &&
        ["open", "fixed", "deferred"].includes(f.status) &&
        f.sources.every((s) => gone.has(s.source)),
    )
    .map((f) => ({ id: f.id, status: "resolved" as const, note: "resolved where it was raised" }));
  const resolved = settled.length
    ? registry.applyPrior(settled, { source: effect.source, cycle, expectedIds: [] }).resolved.length
    : 0;
  const summary = `${counts.added} new, ${counts.merged} merged, ${counts.reopened} reopened${resolved ? `, ${resolved} resolved` : ""}`;
  return { summary, verdict: null };
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
  if (effect.failed && !state.failedReviews.includes(effect.stageId))
    state.failedReviews.push(effect.stageId);
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
