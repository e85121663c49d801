import type { Lease, Store, StoreOps, TaskPatch } from "../domain/store.js";
import type { Json, JsonObject } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { getCount, toRecord } from "./counters.js";
import { parseRunState, type RunState, stateToJson } from "./state.js";

/**
 * Checkpoints of constant size. The run state is small except for two maps that grow with the
 * number of distinct stages a run visits (`visits`, `outcomes`): a 3,000-stage pipeline would
 * copy 3,000 entries into every checkpoint. So a checkpoint stores the small part whole and,
 * of the two maps, only the entries changed since the last counter snapshot; the snapshot itself
 * lives in one marker per run (`counters:<task>:<run>`), rewritten — in the same transaction as
 * a checkpoint — once the changes since it exceed SNAPSHOT_AFTER entries. Writing a checkpoint
 * costs O(SNAPSHOT_AFTER) amortised; loading one reads one checkpoint row and one marker.
 *
 * A checkpoint without `counters` holds both maps whole (version 1 rows, `resume`'s rewrites,
 * a run's first checkpoint) and loads on its own.
 */
export const SNAPSHOT_AFTER = 64;

/** Which counter entries changed since the run's last snapshot (in memory, per run). */
export interface CounterLog {
  /** Generation of the snapshot marker; 0 before the first. */
  gen: number;
  changed: Set<string>;
}

export function newCounterLog(): CounterLog {
  return { gen: 0, changed: new Set() };
}

export function countersKey(taskId: string, runId: number): string {
  return `counters:${taskId}:${runId}`;
}

/** What to write for a checkpoint: the checkpoint JSON and, when due, a new counter snapshot. */
export interface CheckpointWrite {
  state: JsonObject;
  snapshot: { key: string; value: JsonObject } | null;
}

/**
 * Encodes `state` after the stages `touched` changed its counters. Updates `log`: the caller
 * must write `snapshot` (when set) in the same transaction as the checkpoint.
 */
export function encodeCheckpoint(
  state: RunState,
  log: CounterLog,
  touched: readonly string[],
  where: { taskId: string; runId: number },
): CheckpointWrite {
  for (const id of touched) log.changed.add(id);
  const { visits, outcomes, ...rest } = state;
  // The containers a parallel block or an effect still changes in place get their own copy: a
  // store may serialise the checkpoint after an await.
  const small = {
    ...rest,
    pending: { ...rest.pending },
    verdicts: { ...rest.verdicts },
    reviewedAt: { ...rest.reviewedAt },
    failedReviews: [...rest.failedReviews],
  };
  if (log.gen === 0 || log.changed.size > SNAPSHOT_AFTER) {
    log.gen += 1;
    log.changed.clear();
    const value = { gen: log.gen, visits: toRecord(visits), outcomes: toRecord(outcomes) };
    return {
      state: toJson({ ...small, visits: {}, outcomes: {}, counters: { gen: log.gen } }),
      snapshot: { key: countersKey(where.taskId, where.runId), value: toJson(value) },
    };
  }
  const dv: Record<string, number> = {};
  const dout: Record<string, string> = {};
  for (const id of log.changed) {
    const v = getCount(visits, id);
    if (v !== undefined) dv[id] = v;
    const o = getCount(outcomes, id);
    if (o !== undefined) dout[id] = o;
  }
  return {
    state: toJson({ ...small, visits: dv, outcomes: dout, counters: { gen: log.gen } }),
    snapshot: null,
  };
}

/**
 * A checkpoint as the store's JSON, without a JSON round trip (per stage it cost more than the
 * commit): every field of a RunState is JSON by construction, and what is changed in place later
 * was copied above.
 */
function toJson(value: object): JsonObject {
  return value as JsonObject;
}

/** Writes a checkpoint and its snapshot (when due) through `tx`, which must be one transaction. */
export async function writeSnapshot(tx: StoreOps, write: CheckpointWrite, now: number): Promise<void> {
  if (write.snapshot) await tx.setMarker(write.snapshot.key, write.snapshot.value, now);
}

/**
 * Loads the latest checkpoint of a run as a whole RunState (merging its counter snapshot), with
 * the counter log to continue writing from. Null when the run has no checkpoint. Throws
 * FixpointError("checkpoint") when the row or its snapshot is corrupted or missing.
 */
export async function loadRunState(
  store: StoreOps,
  taskId: string,
  runId: number,
): Promise<{ state: RunState; log: CounterLog } | null> {
  const cp = await store.getCheckpoint(runId);
  if (cp === null) return null;
  let raw: Json = cp.state;
  if (typeof raw === "string") {
    try {
      raw = JSON.parse(raw) as Json;
    } catch {
      return { state: parseRunState(cp.state, taskId), log: newCounterLog() };
    }
  }
  const gen = counterGen(raw);
  if (gen === null || raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { state: parseRunState(raw, taskId), log: newCounterLog() };
  }
  const snap = await store.getMarker(countersKey(taskId, runId));
  const base = snap !== null && typeof snap === "object" && !Array.isArray(snap) ? snap : null;
  if (base === null || base.gen !== gen) {
    throw new FixpointError(
      "checkpoint",
      `task ${taskId}: its checkpoint refers to counter snapshot ${gen}, which is missing; run \`fixpoint retry ${taskId}\` to start a new run from scratch`,
    );
  }
  const { counters: _gen, ...delta } = raw as JsonObject;
  const merged = {
    ...delta,
    visits: { ...asObject(base.visits), ...asObject(delta.visits) },
    outcomes: { ...asObject(base.outcomes), ...asObject(delta.outcomes) },
  };
  const state = parseRunState(merged, taskId);
  const changed = new Set([...Object.keys(asObject(delta.visits)), ...Object.keys(asObject(delta.outcomes))]);
  return { state, log: { gen, changed } };
}

function counterGen(raw: Json): number | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const c = raw.counters;
  if (c === null || typeof c !== "object" || Array.isArray(c)) return null;
  return typeof c.gen === "number" ? c.gen : null;
}

function asObject(v: Json | undefined): JsonObject {
  return v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v) ? v : {};
}

/**
 * A checkpoint written outside a stage (a run's start, `resume`, `retry`): the whole state, one
 * event saying why, and the task's position, in one transaction like every stage record.
 */
export async function writeCheckpoint(
  store: Store,
  opts: {
    taskId: string;
    runId: number;
    state: RunState;
    event: { type: string; data: JsonObject };
    task: TaskPatch;
    now: number;
    /** Fence the write by the worker's lease (see StageCommit.fence). */
    fence?: Lease;
  },
): Promise<void> {
  const { counters: _dropped, ...whole } = opts.state as RunState & { counters?: unknown };
  await store.commitStage({
    taskId: opts.taskId,
    runId: opts.runId,
    stage: null,
    checkpoint: { state: stateToJson(whole) },
    findings: [],
    events: [{ taskId: opts.taskId, runId: opts.runId, type: opts.event.type, data: opts.event.data }],
    task: opts.task,
    now: opts.now,
    fence: opts.fence,
  });
}
