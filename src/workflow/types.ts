import type { SourceLocation } from "../errors.js";

/**
 * A workflow is a graph of stages and transitions written in KDL (SPEC §6). These are the
 * validated, immutable shapes the engine runs. Syntax: docs/workflows.md.
 */

export const STAGE_KINDS = [
  "agent",
  "review",
  "fix",
  "gate",
  "decision",
  "parallel",
  "human",
  "github",
  "verify",
  "exit",
] as const;
export type StageKind = (typeof STAGE_KINDS)[number];

export interface Workflow {
  name: string;
  /** Where it was loaded from: a file path, or `builtin:<name>`. */
  source: string;
  start: string;
  /** Top-level stages and parallel children, by id, in declaration order. */
  stages: ReadonlyMap<string, StageDef>;
  transitions: readonly Transition[];
  description?: string;
  /** `workflow "…" max-stages=N`: most stages one run may execute; overrides `defaults max-stages`. */
  maxStages?: number;
}

export interface StageDef {
  id: string;
  kind: StageKind;
  loc: SourceLocation;
  /** Agent name for agent/review/fix stages (defaults: implementer/reviewer/fixer). */
  agent?: string;
  /** Prompt template name (`implement`, `review-code`, `fix`, …). */
  prompt?: string;
  /** Gate stages: the configured gates to run; empty/undefined = every configured gate. */
  gates?: string[];
  /** Bound on visits of this stage within one run (default 20). */
  maxVisits: number;
  /** Stage timeout in ms; falls back to the agent's or gate's timeout. */
  timeoutMs?: number;
  /** Fix stages: entering the stage starts a new cycle. */
  nextCycle: boolean;
  /** Decision stages: routes in order; the first whose condition is true wins. */
  routes: readonly Route[];
  /** Parallel stages: children run concurrently, merged in declaration order. */
  children: readonly StageDef[];
  /** Parallel stages: concurrency bound (default: number of children). */
  max?: number;
  /** Set on children of a parallel stage. */
  parentId?: string;
  /** Exit stages: forced final verdict; when absent the engine derives it from the run state. */
  verdict?: string;
  /** Exit stages with a forced verdict: the one-line reason a person reads. */
  reason?: string;
  /** GitHub stages: the action (`open-pr`, `reply`, `file-issues`, …). */
  action?: string;
  /** Verify stages: at most this many rounds of verification (default 3). */
  maxRounds?: number;
  /** Verify stages: stop after this many rounds in a row that confirm nothing new (default 2). */
  cleanRounds?: number;
  /** Verify stages: which findings to verify, by source prefix (default `pr:`, `pr-review:`). */
  sources?: string[];
  /** Free-form extra properties, for handlers that need more. */
  props: Readonly<Record<string, string | number | boolean | null>>;
}

export interface Route {
  to: string;
  when: Condition;
  loc: SourceLocation;
}

export interface Transition {
  from: string;
  to: string;
  when?: Condition;
  loc: SourceLocation;
}

/** A parsed condition with its source text, for messages. */
export interface Condition {
  text: string;
  expr: Expr;
}

export type Expr =
  | { type: "literal"; value: string | number | boolean; pos: number }
  | { type: "ident"; name: string; pos: number }
  | { type: "call"; name: string; args: Expr[]; pos: number }
  | { type: "unary"; op: "!" | "-"; operand: Expr; pos: number }
  | {
      type: "binary";
      op: "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||";
      left: Expr;
      right: Expr;
      pos: number;
    };

export type Value = string | number | boolean | null;

/**
 * What conditions can ask. The engine supplies one per evaluation; the evaluator never reaches
 * anything else. Unknown functions are rejected at validation time (see CONDITION_FUNCTIONS).
 */
export interface ConditionEnv {
  outcome(stage: string): Value;
  status(stage: string): Value;
  context(key: string): Value;
  cycle(): number;
  max_cycles(): number;
  verdict(): Value;
  blocking_open(): number;
  open(severity?: string): number;
  gates_passed(): boolean;
  no_progress(): boolean;
  budget_left(): boolean;
  all_blocked(): boolean;
}

/** Function name → accepted argument counts [min, max]. */
export const CONDITION_FUNCTIONS: Readonly<Record<keyof ConditionEnv, readonly [number, number]>> = {
  outcome: [1, 1],
  status: [1, 1],
  context: [1, 1],
  cycle: [0, 0],
  max_cycles: [0, 0],
  verdict: [0, 0],
  blocking_open: [0, 0],
  open: [0, 1],
  gates_passed: [0, 0],
  no_progress: [0, 0],
  budget_left: [0, 0],
  all_blocked: [0, 0],
};
