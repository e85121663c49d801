import { z } from "zod";
import type {
  FinalVerdict,
  JsonObject,
  ReviewVerdict,
  StageOutcome,
  StoredReviewIssue,
  TokenUsage,
} from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { type Counters, fromRecord, toRecord } from "./counters.js";
import type { Effect } from "./effect-types.js";

/**
 * Everything the engine needs to continue a run, written as the checkpoint after every stage in
 * the same transaction as the stage record. Versioned: a checkpoint from a newer fixpoint is
 * refused, an older one is migrated here step by step.
 *
 * Version 2 (constant-size checkpoints, see checkpoint.ts): a row may hold only the changed
 * entries of `visits`/`outcomes` plus `counters.gen`, merged with a snapshot marker on load.
 * A version 1 row is a whole state and loads as one.
 */
export const RUN_STATE_VERSION = 2;

export interface RunState {
  version: number;
  /** The next stage to run; null once the run reached an exit. */
  next: string | null;
  cycle: number;
  /** Cycle number at which this run lineage started counting again (a review-feedback resume). */
  cycleBase: number;
  /** `stage: reason` of the last working stage when it failed, else null (quoted by forced exits). */
  lastFailure: string | null;
  /** Stages this run lineage executed, exits not counted (bounded by `max-stages`). */
  stagesRun: number;
  /** The stage at which the run stopped on an error, for `retry`. */
  stoppedAt: string | null;
  /** Visits per stage id (a persistent table: read with getCount, update with setCount). */
  visits: Counters<number>;
  /** Last outcome per stage id. */
  outcomes: Counters<StageOutcome>;
  /** Review stages of the current cycle that could not deliver a review (they block approval). */
  failedReviews: string[];
  /** Verdicts of the review stages of the current cycle. */
  verdicts: Record<string, ReviewVerdict>;
  /** null until a gate stage ran; true when every gate of the last gate stage passed. */
  gatesPassed: boolean | null;
  /** Open blocking findings after each cycle's reviews, index = cycle. */
  blockingHistory: number[];
  /** Free context for conditions (`context("key")`) and handlers. */
  context: JsonObject;
  /** Head SHA each review stage last reviewed, for "changes since your last review". */
  reviewedAt: Record<string, string>;
  /** Agent name → session id of its last turn in this task. */
  sessions: Record<string, string>;
  /** Usage and cost of this run so far. */
  usage: TokenUsage;
  costUsd: number;
  /** Children of a parallel stage that finished but whose effects are not applied yet. */
  pending: Record<string, PendingChild>;
  /** Blocking findings handed over by `resume` after a review failure (seed 002). */
  followup: StoredReviewIssue[] | null;
  final: { verdict: FinalVerdict; reason: string } | null;
}

export interface PendingChild {
  outcome: StageOutcome;
  verdict: ReviewVerdict | null;
  effect: Effect;
  sessionId: string | null;
  agent: string | null;
  summary: string | null;
  failureReason: string | null;
}

export function initialRunState(start: string): RunState {
  return {
    version: RUN_STATE_VERSION,
    next: start,
    cycle: 0,
    cycleBase: 0,
    stoppedAt: null,
    stagesRun: 0,
    lastFailure: null,
    visits: {},
    outcomes: {},
    verdicts: {},
    failedReviews: [],
    gatesPassed: null,
    blockingHistory: [],
    context: {},
    reviewedAt: {},
    sessions: {},
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    pending: {},
    followup: null,
    final: null,
  };
}

const usageSchema = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
});

// The checkpoint is our own format, so it is validated strictly in shape but tolerant of keys a
// newer minor version may add (passthrough) — a corrupted row is reported, never half-used.
const stateSchema = z
  .object({
    version: z.number().int(),
    next: z.string().nullable(),
    cycle: z.number().int().min(0),
    cycleBase: z.number().int().min(0).default(0),
    stoppedAt: z.string().nullable().default(null),
    stagesRun: z.number().int().min(0).default(0),
    lastFailure: z.string().nullable().default(null),
    visits: z.record(z.number()),
    outcomes: z.record(z.string()),
    verdicts: z.record(z.string()),
    failedReviews: z.array(z.string()).default([]),
    gatesPassed: z.boolean().nullable(),
    blockingHistory: z.array(z.number()),
    context: z.record(z.unknown()),
    reviewedAt: z.record(z.string()),
    sessions: z.record(z.string()),
    usage: usageSchema,
    costUsd: z.number(),
    pending: z.record(z.unknown()).default({}),
    followup: z.array(z.unknown()).nullable().default(null),
    final: z.object({ verdict: z.string(), reason: z.string() }).nullable().default(null),
  })
  .passthrough();

/** Parses a stored checkpoint; throws FixpointError("checkpoint") naming the task when corrupted. */
export function parseRunState(raw: unknown, taskId: string): RunState {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw corruptedCheckpoint(taskId, "it is not valid JSON");
    }
  }
  const parsed = stateSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corruptedCheckpoint(taskId, `${issue?.path.join(".") || "state"}: ${issue?.message ?? "invalid"}`);
  }
  if (parsed.data.version > RUN_STATE_VERSION) {
    throw new FixpointError(
      "checkpoint",
      `task ${taskId}: its checkpoint was written by a newer fixpoint (state version ${parsed.data.version}); upgrade fixpoint to resume it`,
    );
  }
  const data = parsed.data as unknown as RunState & {
    visits: Record<string, number>;
    outcomes: Record<string, StageOutcome>;
  };
  // Stored flat (one entry per stage id); held as persistent tables.
  return {
    ...data,
    visits: fromRecord<number>(data.visits),
    outcomes: fromRecord<StageOutcome>(data.outcomes),
  };
}

/** The error for a checkpoint that cannot be used: it names the task, why, and the way out. */
export function corruptedCheckpoint(taskId: string, why: string): FixpointError {
  return new FixpointError(
    "checkpoint",
    `task ${taskId}: its checkpoint is corrupted (${why}); run \`fixpoint retry ${taskId}\` to start a new run from scratch`,
  );
}

/** The stored form of a state: counters flat, everything JSON. */
export function stateToJson(state: RunState): JsonObject {
  const flat = { ...state, visits: toRecord(state.visits), outcomes: toRecord(state.outcomes) };
  return JSON.parse(JSON.stringify(flat)) as JsonObject;
}
