import type { Learning, RawFinding } from "../../domain/types.js";
import {
  diffFiles,
  type LearnedDismissal,
  LearningMatcher,
  learningsFor,
  renderLearningsWithin,
} from "../../findings/learnings.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext } from "../deps.js";
import { promptBudgetFor } from "../prompt-budget.js";
import { agentOf } from "./findings-budget.js";

/** Learnings take at most this share of a reviewer's prompt budget; the rest are named by count. */
const LEARNINGS_SHARE = 8;

export interface ReviewLearnings {
  /** The prompt section: the learnings in scope of the diff, fenced, within the budget. */
  text: string;
  /** Ids told to the reviewer. */
  shown: string[];
  matcher: LearningMatcher;
}

/** The repository's learnings for a review of `diff` (read through the Store port). */
export async function reviewLearnings(
  stage: StageDef,
  ctx: StageContext,
  diff: string,
): Promise<ReviewLearnings> {
  const all: Learning[] = await ctx.deps.store.listLearnings({ repo: ctx.task.repo });
  const budget = promptBudgetFor(ctx.deps.config, agentOf(stage, ctx));
  const told = learningsFor(all, diffFiles(diff));
  const rendered = renderLearningsWithin(told, Math.floor(budget.bytes / LEARNINGS_SHARE));
  return { text: rendered.text, shown: rendered.shown, matcher: new LearningMatcher(all) };
}

/** Splits a reviewer's findings into those it keeps and those a learning answers. */
export function splitLearned(
  findings: readonly RawFinding[],
  matcher: LearningMatcher,
): { kept: RawFinding[]; learned: { finding: RawFinding; dismissal: LearnedDismissal }[] } {
  const kept: RawFinding[] = [];
  const learned: { finding: RawFinding; dismissal: LearnedDismissal }[] = [];
  for (const f of findings) {
    const dismissal = matcher.match(f);
    if (dismissal) learned.push({ finding: f, dismissal });
    else kept.push(f);
  }
  return { kept, learned };
}
