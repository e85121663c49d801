import type { FailureClass } from "../../domain/types.js";
import type { StageResult } from "../../engine/deps.js";
import type { Effect } from "../../engine/effects.js";

const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

type Extra = Partial<Pick<StageResult, "headBefore" | "headAfter" | "context">>;

/** A GitHub stage that did what it was asked; `summary` is its progress line. */
export function ghSuccess(
  summary: string,
  effect: Effect = { type: "none" },
  extra: Extra = {},
): StageResult {
  return { outcome: "success", summary, effect, usage: ZERO, costUsd: 0, attempts: 1, ...extra };
}

/** Some of it worked (e.g. two of three replies were posted); the reason says what did not. */
export function ghPartial(
  summary: string,
  reason: string,
  effect: Effect = { type: "none" },
  extra: Extra = {},
): StageResult {
  return { ...ghSuccess(summary, effect, extra), outcome: "partial_success", failureReason: reason };
}

/** Nothing to do here (no pull request yet, nothing to reply to). */
export function ghSkipped(summary: string, extra: Extra = {}): StageResult {
  return { ...ghSuccess(summary, { type: "none" }, extra), outcome: "skipped" };
}

export function ghFail(
  reason: string,
  failureClass: FailureClass = "exit_nonzero",
  extra: Extra = {},
): StageResult {
  return {
    outcome: "fail",
    failureClass,
    failureReason: reason,
    summary: reason,
    effect: { type: "none" },
    usage: ZERO,
    costUsd: 0,
    attempts: 1,
    ...extra,
  };
}
