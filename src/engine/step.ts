import { DEFAULT_MAX_STAGES } from "../config/defaults.js";
import {
  addUsage,
  type FailureClass,
  type JsonObject,
  type ReviewVerdict,
  type Severity,
  type StageOutcome,
  type TokenUsage,
  totalTokens,
} from "../domain/types.js";
import { noProgress } from "../findings/convergence.js";
import { parseSeverity } from "../findings/severity.js";
import { selectNext } from "../workflow/next.js";
import type { ConditionEnv, StageDef, Value, Workflow } from "../workflow/types.js";
import { getCount, setCount } from "./counters.js";
import type { RunEnd } from "./run-env.js";
import type { RunState } from "./state.js";
import { cycleVerdict } from "./verdict.js";

/**
 * The engine's decisions as one pure function: `step(state, event) → { state, effects }`.
 *
 * Glossary:
 * - StepState: the run state plus the rules fixed for the run (workflow, bounds, budget);
 * - StepEvent: what happened — `continue` (the run is at `run.next`: start, resume, or after a
 *   record) or `stage-finished` (a stage's result as plain data, and what the registry says
 *   after its effect was applied);
 * - StepEffect: what the interpreter (run-task.ts) must do next — run a stage, record one, or
 *   finish the run (recording the stage that ended it in the same transaction).
 *
 * Never mutates its input; returns a new state. Same input, same output: resume and replay
 * depend on it. A finished run (`run.final` set) takes no more steps: it has no effects.
 */
export interface StepRules {
  workflow: Workflow;
  maxCycles: number;
  budget: { usd?: number; tokens?: number };
  /** What earlier runs of the task spent (every run counts against the budget). */
  prior: { usd: number; tokens: number };
  /**
   * Most stages the run may execute (exits not counted) and the config key that sets it;
   * absent = DEFAULT_MAX_STAGES (`defaults max-stages`).
   */
  maxStages?: { limit: number; key: string };
}

export interface StepState {
  readonly rules: StepRules;
  readonly run: Readonly<RunState>;
}

/** What conditions and bounds read from the findings registry, as plain numbers. */
export interface RegistryFacts {
  blockingOpen: number;
  /** Open findings, in total (`all`) and per severity. */
  open: Readonly<Record<Severity | "all", number>>;
  maxTimesReopened: number;
  allBlocked: boolean;
}

/** A stage's result as the step needs it. */
export interface StageFacts {
  outcome: StageOutcome;
  failureClass?: FailureClass;
  failureReason?: string;
  usage: TokenUsage;
  costUsd: number;
  agent?: string | null;
  sessionId?: string | null;
  context?: Record<string, string | number | boolean | null>;
  /** A review stage: its effective verdict, whether it could not deliver, the head it reviewed. */
  review?: { verdict: ReviewVerdict; failed: boolean; head: string | null };
  /** A gate stage: whether every gate passed. */
  gatesPassed?: boolean;
  /**
   * A parallel block counts, records and merges its children itself while it runs; its result
   * carries the state it left, which the step continues from.
   */
  merged?: RunState;
}

export type StepEvent =
  | { type: "continue" }
  | { type: "stage-finished"; stageId: string; facts: StageFacts; registry: RegistryFacts };

export type StepEffect =
  | { type: "run-stage"; stage: StageDef }
  | { type: "record"; stageId: string }
  | { type: "finish"; end: RunEnd; recordStageId: string | null };

export interface StepOutput {
  state: StepState;
  effects: StepEffect[];
}

const DEFAULT_LIMIT = { limit: DEFAULT_MAX_STAGES, key: "defaults max-stages" };

/** Stage kinds whose failure (timeout, crash, API error) stops the run: the loop cannot go on without them. */
const FATAL_ON_FAILURE = new Set(["agent", "fix"]);
const FATAL_CLASSES = new Set(["timeout", "cancelled", "agent_error", "exit_nonzero", "internal", "config"]);

export function step(state: StepState, event: StepEvent): StepOutput {
  if (state.run.final !== null) return { state, effects: [] };
  return event.type === "continue" ? enter(state) : finished(state, event);
}

/** At `run.next`: check the bounds, then run the stage (or end the run). */
function enter(state: StepState): StepOutput {
  const { run, rules } = state;
  const end = (e: RunEnd): StepOutput => ({
    state,
    effects: [{ type: "finish", end: e, recordStageId: null }],
  });
  // A checkpoint that names no next stage but holds no verdict: the run ended, its end unwritten.
  if (run.next === null) return end({ kind: "exit", stageId: null });
  const stage = rules.workflow.stages.get(run.next);
  if (!stage) return end({ kind: "stopped", reason: `workflow has no stage \`${run.next}\`` });
  if ((getCount(run.visits, stage.id) ?? 0) >= stage.maxVisits) {
    return end({
      kind: "stopped",
      reason: `stage ${stage.id} reached its bound of ${stage.maxVisits} visits`,
    });
  }
  // Starting this stage would begin fix cycle maxCycles+1: whatever the routes say, the run ends
  // and its verdict is derived as at an exit (MAX_CYCLES_REACHED while blocking findings remain).
  if (stage.nextCycle && relCycle(run) >= rules.maxCycles) return end({ kind: "exit", stageId: null });
  if (!budgetLeft(rules, run) && stage.kind !== "exit" && stage.kind !== "decision") {
    return end({ kind: "budget", stageId: stage.id });
  }
  const cost = stageCount(stage);
  if (cost > 0 && run.stagesRun + cost > (rules.maxStages ?? DEFAULT_LIMIT).limit) {
    const { limit, key } = rules.maxStages ?? DEFAULT_LIMIT;
    return end({
      kind: "stopped",
      stageId: stage.id,
      reason: `stage ${stage.id} would be stage ${run.stagesRun + cost} of this run, over the limit of max-stages=${limit}; raise \`${key}\` if the workflow really needs more`,
    });
  }
  const entered: RunState = stage.nextCycle
    ? { ...run, cycle: run.cycle + 1, verdicts: {}, failedReviews: [] }
    : { ...run };
  return { state: { rules, run: entered }, effects: [{ type: "run-stage", stage }] };
}

/** A stage finished: fold its result in, then decide what comes next. */
function finished(state: StepState, event: Extract<StepEvent, { type: "stage-finished" }>): StepOutput {
  const { rules } = state;
  const stage = rules.workflow.stages.get(event.stageId);
  if (!stage) {
    const end: RunEnd = { kind: "stopped", reason: `workflow has no stage \`${event.stageId}\`` };
    return { state, effects: [{ type: "finish", end, recordStageId: null }] };
  }
  const folded = foldStage(event.facts.merged ?? state.run, stage, event.facts, event.registry);
  const run = { ...folded, stagesRun: folded.stagesRun + stageCount(stage) };
  const done = (end: RunEnd): StepOutput => ({
    state: { rules, run: { ...run, next: null } },
    effects: [{ type: "finish", end, recordStageId: stage.id }],
  });
  if (stage.kind === "exit") {
    return done({ kind: "exit", stageId: stage.id, forced: stage.verdict, reason: exitReason(stage, run) });
  }
  const f = event.facts;
  if (
    f.outcome === "fail" &&
    FATAL_ON_FAILURE.has(stage.kind) &&
    FATAL_CLASSES.has(f.failureClass ?? "") &&
    stage.props["on-fail"] !== "continue"
  ) {
    return done({
      kind: "stopped",
      reason: `${stage.id} failed: ${f.failureReason ?? "unknown error"}`,
      stageId: stage.id,
    });
  }
  const next = selectNext(rules.workflow, stage.id, conditionEnv(run, event.registry, rules));
  if (next === null) {
    return done({
      kind: "stopped",
      reason: `no transition from stage ${stage.id} matched`,
      stageId: stage.id,
    });
  }
  return { state: { rules, run: { ...run, next } }, effects: [{ type: "record", stageId: stage.id }] };
}

/** The run state after a stage: counters, usage, sessions, context, review and gate results. */
export function foldStage(
  run: Readonly<RunState>,
  stage: StageDef,
  f: StageFacts,
  registry: RegistryFacts,
  opts: { countVisit?: boolean } = {},
): RunState {
  const out: RunState = {
    ...run,
    visits:
      opts.countVisit === false
        ? run.visits
        : setCount(run.visits, stage.id, (getCount(run.visits, stage.id) ?? 0) + 1),
    outcomes: setCount(run.outcomes, stage.id, f.outcome),
    usage: addUsage(run.usage, f.usage),
    costUsd: run.costUsd + f.costUsd,
  };
  if (f.agent && f.sessionId) out.sessions = { ...run.sessions, [f.agent]: f.sessionId };
  if (f.context) out.context = { ...run.context, ...f.context } as JsonObject;
  if (stage.kind === "fix" && run.followup) out.followup = null;
  // Decisions and exits do no work of their own: the failure before them is what an exit quotes.
  if (stage.kind !== "decision" && stage.kind !== "exit") {
    out.lastFailure = f.outcome === "fail" && f.failureReason ? `${stage.id}: ${f.failureReason}` : null;
  }
  if (f.review) {
    if (f.review.failed && !run.failedReviews.includes(stage.id)) {
      out.failedReviews = [...run.failedReviews, stage.id];
    }
    out.verdicts = { ...run.verdicts, [stage.id]: f.review.verdict };
    if (f.review.head) out.reviewedAt = { ...run.reviewedAt, [stage.id]: f.review.head };
  }
  if (f.gatesPassed !== undefined) out.gatesPassed = f.gatesPassed;
  if (stage.kind === "decision") {
    const idx = run.cycle - run.cycleBase;
    const history = [...run.blockingHistory];
    while (history.length < idx) history.push(history.at(-1) ?? 0);
    history[idx] = registry.blockingOpen;
    out.blockingHistory = history;
  }
  return out;
}

/** What a stage counts against `max-stages`: itself and its parallel children; an exit nothing. */
export function stageCount(stage: Pick<StageDef, "kind" | "children">): number {
  return stage.kind === "exit" ? 0 : 1 + stage.children.length;
}

/** Cycles counted from the run lineage's base (a review-feedback resume starts again at 1). */
function relCycle(run: Pick<RunState, "cycle" | "cycleBase">): number {
  return run.cycle - (run.cycleBase ?? 0);
}

export function budgetLeft(rules: StepRules, run: Readonly<RunState>): boolean {
  const { usd, tokens } = rules.budget;
  if (usd !== undefined && rules.prior.usd + run.costUsd >= usd) return false;
  if (tokens !== undefined && rules.prior.tokens + totalTokens(run.usage) >= tokens) return false;
  return true;
}

/** A forced exit says why: its own `reason`, else the failure of the stage that led to it. */
export function exitReason(
  stage: Pick<StageDef, "verdict" | "reason">,
  run: Pick<RunState, "lastFailure">,
): string | undefined {
  if (!stage.verdict) return undefined;
  const parts = [stage.reason, run.lastFailure].filter((p): p is string => Boolean(p));
  return parts.length ? parts.join(": ") : undefined;
}

/** The read-only view conditions evaluate against: the run state and the registry's facts. */
export function conditionEnv(
  run: Readonly<RunState>,
  registry: RegistryFacts,
  rules: StepRules,
): ConditionEnv {
  return {
    outcome: (stage) => getCount(run.outcomes, stage) ?? null,
    status: (stage) => getCount(run.outcomes, stage) ?? null,
    context: (key) => toValue(run.context[key]),
    cycle: () => relCycle(run),
    max_cycles: () => rules.maxCycles,
    verdict: () => cycleVerdict(run),
    // A review that could not be completed blocks approval like a finding would.
    blocking_open: () => registry.blockingOpen + run.failedReviews.length,
    open: (severity?: string) => {
      if (severity === undefined) return registry.open.all;
      const sev = parseSeverity(severity);
      return sev ? registry.open[sev] : 0;
    },
    gates_passed: () => run.gatesPassed !== false,
    no_progress: () => noProgress(run.blockingHistory, registry.maxTimesReopened),
    budget_left: () => budgetLeft(rules, run),
    all_blocked: () => registry.allBlocked,
  };
}

function toValue(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  return JSON.stringify(v);
}
