import type { RawFinding, ReviewOutput, ReviewVerdict, Severity } from "../domain/types.js";
import { isActiveFinding } from "../domain/types.js";
import type { Registry } from "../findings/registry.js";
import { effectiveVerdict } from "../findings/review-parse.js";
import type { Effect } from "./effect-types.js";
import type { RunState } from "./state.js";

export type { Effect, GateResultData } from "./effect-types.js";

export interface AppliedEffect {
  /** Short human summary for the progress line, e.g. "2 findings (1 P1, 1 P2)". */
  summary: string | null;
  verdict: ReviewVerdict | null;
}

/** What applying an effect to the registry tells the run state (see StageFacts in step.ts). */
export interface EffectFacts extends AppliedEffect {
  review?: { verdict: ReviewVerdict; failed: boolean; head: string | null };
  gatesPassed?: boolean;
}

/**
 * Applies a stage's effect to the registry (the one mutable account of a run) and returns what
 * the run state learns from it; the state itself is folded purely by `foldStage` (step.ts).
 */
export function applyEffectToRegistry(
  effect: Effect,
  registry: Registry,
  cycle: number,
  opts: { blockingSeverity: Severity },
): EffectFacts {
  switch (effect.type) {
    case "none":
      return { summary: null, verdict: null };
    case "findings":
      return applyFindings(effect, registry, cycle);
    case "verify": {
      const r = registry.applyVerification(effect.verdicts, {
        source: `verify:${effect.stageId}`,
        cycle,
      });
      // A refutation that dismissed its finding teaches the repository not to raise it again.
      const refuted = new Set(r.refuted);
      for (const l of effect.learnings ?? []) {
        if (l.source.findingId !== undefined && refuted.has(l.source.findingId)) registry.teach(l);
      }
      return { summary: `${r.confirmed.length} confirmed, ${r.refuted.length} refuted`, verdict: null };
    }
    case "review":
      return applyReview(effect, registry, cycle, opts.blockingSeverity);
    case "gates": {
      for (const g of effect.results) {
        registry.applyGate(
          g.name,
          cycle,
          g.passed || !g.finding ? { passed: true } : { passed: false, finding: g.finding },
        );
      }
      const failed = effect.results.filter((g) => !g.passed).map((g) => g.name);
      const summary =
        effect.results.length === 0
          ? "no gates"
          : failed.length === 0
            ? "passed"
            : `failed: ${failed.join(", ")}`;
      return { summary, verdict: null, gatesPassed: failed.length === 0 };
    }
    case "fix": {
      if (!effect.report) {
        return { summary: `report unparsable: ${effect.parseError ?? "no report"}`, verdict: null };
      }
      const out = registry.applyFixReport(effect.report, {
        cycle,
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

/**
 * Applies an effect to the registry and writes what it says into `state` in place (verdicts,
 * failed reviews, reviewed heads, gate result). For callers that hold a mutable state.
 */
export function applyEffect(
  effect: Effect,
  registry: Registry,
  state: RunState,
  opts: { blockingSeverity: Severity },
): AppliedEffect {
  const facts = applyEffectToRegistry(effect, registry, state.cycle, opts);
  if (facts.review && effect.type === "review") {
    if (facts.review.failed && !state.failedReviews.includes(effect.stageId)) {
      state.failedReviews.push(effect.stageId);
    }
    state.verdicts[effect.stageId] = facts.review.verdict;
    if (facts.review.head) state.reviewedAt[effect.stageId] = facts.review.head;
  }
  if (facts.gatesPassed !== undefined) state.gatesPassed = facts.gatesPassed;
  return { summary: facts.summary, verdict: facts.verdict };
}

function applyFindings(
  effect: Extract<Effect, { type: "findings" }>,
  registry: Registry,
  cycle: number,
): AppliedEffect {
  const counts = { added: 0, merged: 0, reopened: 0, learned: 0 };
  for (const l of effect.learnings ?? []) registry.teach(l);
  const add = (raws: RawFinding[], source: { source: string; cycle: number; author?: string }, at = -1) => {
    const dismissal = effect.learned?.[at] ?? null;
    if (dismissal && raws[0]) {
      counts.learned += registry.addLearned([{ raw: raws[0], dismissal }], source).length;
      return;
    }
    const r = registry.addFindings(raws, source);
    counts.added += r.added.length;
    counts.merged += r.merged.length;
    counts.reopened += r.reopened.length;
  };
  const origins = effect.origins;
  if (!origins && !effect.learned) add(effect.findings, { source: effect.source, cycle });
  else
    effect.findings.forEach((raw, i) => {
      const o = origins?.[i];
      add(
        [raw],
        o
          ? { source: o.source, cycle, ...(o.author ? { author: o.author } : {}) }
          : { source: effect.source, cycle },
        i,
      );
    });
  const gone = new Set(effect.resolvedSources ?? []);
  // Resolved everywhere it was raised (e.g. the reviewer resolved their PR thread): settled. A
  // finding another source still raises stays as it is.
  const settled = registry
    .all()
    .filter((f) => gone.size > 0 && isActiveFinding(f.status) && f.sources.every((s) => gone.has(s.source)))
    .map((f) => ({ id: f.id, status: "resolved" as const, note: "resolved where it was raised" }));
  const resolved = settled.length
    ? registry.applyPrior(settled, { source: effect.source, cycle, expectedIds: [] }).resolved.length
    : 0;
  const summary = `${counts.added} new, ${counts.merged} merged, ${counts.reopened} reopened${resolved ? `, ${resolved} resolved` : ""}${counts.learned ? `, ${counts.learned} dismissed by learnings` : ""}`;
  return { summary, verdict: null };
}

function applyReview(
  effect: Extract<Effect, { type: "review" }>,
  registry: Registry,
  cycle: number,
  blockingSeverity: Severity,
): EffectFacts {
  const source = `review:${effect.stageId}`;
  const prior = registry.applyPrior(effect.output.prior, {
    source,
    cycle,
    expectedIds: effect.expectedIds,
  });
  registry.addFindings(effect.output.findings, { source, cycle });
  const learned = effect.learned ?? [];
  if (learned.length > 0) {
    registry.addLearned(
      learned.map((l) => ({ raw: l.finding, dismissal: l.dismissal })),
      { source, cycle },
    );
  }
  const verdict = effectiveVerdict(effect.output, blockingSeverity);
  const note = learned.length ? ` (${learned.length} dismissed by learnings)` : "";
  return {
    summary: `${reviewSummary(verdict, effect.output, prior.resolved.length)}${note}`,
    verdict,
    review: { verdict, failed: effect.failed === true, head: effect.head },
  };
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
