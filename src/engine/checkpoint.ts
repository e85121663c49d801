import type { Lease, Store, StoreOps, TaskPatch } from "../domain/store.js";
import type { Json, JsonObject, StageOutcome } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { addRecord, type BuildingCounters, getCount, toRecord } from "./counters.js";
import {
  loadPending,
  newPendingLog,
  type PendingLog,
  pendingCountOf,
  pendingWrites,
} from "./pending-markers.js";
import { corruptedCheckpoint, parseRunState, type RunState, stateToJson } from "./state.js";

/**
 * Checkpoints of constant size. The run state is small except for two maps that grow with the
 * number of distinct stages a run visits (`visits`, `outcomes`): a 10,000-stage pipeline would
 * copy 10,000 entries into every checkpoint. So a checkpoint stores the small part whole and,
 * of the two maps, only the entries changed since the last counter snapshot. The snapshot lives
 * in pages: markers `counters:<task>:<run>:p<k>`, each holding the counters of PAGE_SIZE stage
 * ids in the order the run first counted them. Once the changes since the last snapshot exceed
 * SNAPSHOT_AFTER entries, the pages holding them are rewritten, in the same transaction as the
 * checkpoint. A pipeline's changes sit in one or two pages and a loop's in a few, so a stage
 * costs O(SNAPSHOT_AFTER + PAGE_SIZE) amortised at any length (one snapshot of the whole map,
 * as before, cost O(stages) every 64 stages: at 10,000 stages, 12 ms). Loading reads one
 * checkpoint row and every page, in one read, into one flat Map per counter (the tables' base).
 *
 * A page is columns, `{ gen, ids, visits, outcomes }`: the counters of `ids[i]` at index i (null:
 * none). Columns because JSON.parse gives an object a hidden class per new key: the first load
 * of 3,000 stage ids as keys took 8-11 ms, as columns 2-3 ms. Pages written before hold `visits`
 * and `outcomes` as objects keyed by stage id, and still load.
 *
 * A checkpoint without `counters` holds both maps whole (version 1 rows, `resume`'s rewrites,
 * a run's first checkpoint) and loads on its own; one whose `counters` has no `pages` refers to
 * the single snapshot marker `counters:<task>:<run>` earlier versions wrote.
 *
 * SNAPSHOT_AFTER trades the two costs: a checkpoint carries SNAPSHOT_AFTER / 2 changed entries on
 * average, and a snapshot rewrites a page or two of PAGE_SIZE every SNAPSHOT_AFTER stages. 16
 * (was 64) makes their sum about the least for a pipeline; measured on a 3,000-stage no-op chain,
 * the checkpoint's encoding and redaction per stage fell from 130 to 60 µs.
 */
export const SNAPSHOT_AFTER = 16;
/** Stage ids per snapshot page. */
export const PAGE_SIZE = 64;

/** Where a run's counters stand against their snapshot (in memory, per run). */
export interface CounterLog {
  /** Generation of the snapshot; 0 before the first (the next checkpoint writes every page). */
  gen: number;
  /** Ids whose counters changed since the snapshot. */
  changed: Set<string>;
  /** The ids of each page, in first-counted order; `pageOf` is its inverse (null: not made yet). */
  pages: string[][];
  pageOf: Map<string, number> | null;
  /** The pending children of a parallel block, written as markers of their own (pending-markers.ts). */
  pending: PendingLog;
}

export function newCounterLog(): CounterLog {
  return { gen: 0, changed: new Set(), pages: [], pageOf: new Map(), pending: newPendingLog() };
}

/** The single snapshot marker of checkpoints written before pages (read only). */
export function countersKey(taskId: string, runId: number): string {
  return `counters:${taskId}:${runId}`;
}

export function counterPageKey(taskId: string, runId: number, page: number): string {
  return `counters:${taskId}:${runId}:p${page}`;
}

/**
 * What to write for a checkpoint: the checkpoint JSON, the markers of the parallel block's
 * children recorded since the last one (the commit's `markers`), and, when due, the snapshot pages.
 */
export interface CheckpointWrite {
  state: JsonObject;
  markers: { key: string; value: JsonObject }[];
  snapshot: { key: string; value: JsonObject }[] | null;
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
  const pending = pendingWrites(rest.pending, log.pending, touched, where);
  // The containers a parallel block or an effect still changes in place get their own copy: a
  // store may serialise the checkpoint after an await. The pending children are in markers.
  const small = {
    ...rest,
    pending: {},
    pendingCount: pending.count,
    verdicts: { ...rest.verdicts },
    reviewedAt: { ...rest.reviewedAt },
    failedReviews: [...rest.failedReviews],
  };
  if (log.gen === 0 || log.changed.size > SNAPSHOT_AFTER) {
    // The first snapshot of a log holds every counter: whatever an earlier form stored is replaced.
    const ids =
      log.gen === 0
        ? new Set([...Object.keys(toRecord(visits)), ...Object.keys(toRecord(outcomes))])
        : log.changed;
    const dirty = new Set<number>();
    for (const id of ids) dirty.add(pageFor(log, id));
    log.gen += 1;
    log.changed.clear();
    const snapshot = [...dirty].map((page) => {
      const ids = [...(log.pages[page] ?? [])];
      const pv: (number | null)[] = [];
      const po: (string | null)[] = [];
      for (const id of ids) {
        pv.push(getCount(visits, id) ?? null);
        po.push(getCount(outcomes, id) ?? null);
      }
      return {
        key: counterPageKey(where.taskId, where.runId, page),
        value: { gen: log.gen, ids, visits: pv, outcomes: po },
      };
    });
    return {
      state: toJson({
        ...small,
        visits: {},
        outcomes: {},
        counters: { gen: log.gen, pages: log.pages.length },
      }),
      markers: pending.markers,
      snapshot,
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
    state: toJson({
      ...small,
      visits: dv,
      outcomes: dout,
      counters: { gen: log.gen, pages: log.pages.length },
    }),
    markers: pending.markers,
    snapshot: null,
  };
}

/** The page holding `id`, given one (the last, or a new one when it is full) if it has none. */
function pageFor(log: CounterLog, id: string): number {
  if (log.pageOf === null) {
    // A loaded log: its inverse made once, at its first snapshot.
    const pageOf = new Map<string, number>();
    log.pages.forEach((ids, page) => {
      for (const x of ids) pageOf.set(x, page);
    });
    log.pageOf = pageOf;
  }
  const known = log.pageOf.get(id);
  if (known !== undefined) return known;
  let page = log.pages.length - 1;
  if (page < 0 || (log.pages[page]?.length ?? 0) >= PAGE_SIZE) {
    log.pages.push([]);
    page += 1;
  }
  log.pages[page]?.push(id);
  log.pageOf.set(id, page);
  return page;
}

/**
 * A checkpoint as the store's JSON, without a JSON round trip (per stage it cost more than the
 * commit): every field of a RunState is JSON by construction, and what is changed in place later
 * was copied above.
 */
function toJson(value: object): JsonObject {
  return value as JsonObject;
}

/** Writes a checkpoint's snapshot pages (when due) through `tx`, which must be one transaction. */
export async function writeSnapshot(tx: StoreOps, write: CheckpointWrite, now: number): Promise<void> {
  for (const page of write.snapshot ?? []) await tx.setMarker(page.key, page.value, now);
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
  const counters = counterRef(raw);
  if (counters === null || raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { state: parseRunState(raw, taskId), log: newCounterLog() };
  }
  const missing = (what: string) =>
    new FixpointError(
      "checkpoint",
      `task ${taskId}: its checkpoint refers to counter snapshot ${counters.gen}${what}, which is missing; run \`fixpoint retry ${taskId}\` to start a new run from scratch`,
    );
  const log = newCounterLog();
  // The snapshot goes into one flat Map per table (the tables' `base`), the checkpoint's own
  // entries into their levels: at 3,000 stages, putting every snapshot counter into the levels
  // took most of a resumed run's first load (docs/benchmarks.md).
  const bases = new SnapshotBases(taskId);
  if (counters.pages === null) {
    // The single marker of earlier versions; the next checkpoint rewrites it as pages (gen 0).
    const snap = asObject((await store.getMarker(countersKey(taskId, runId))) ?? undefined);
    if (snap.gen !== counters.gen) throw missing("");
    bases.add(snap, " of the counter snapshot");
  } else {
    log.gen = counters.gen;
    // Every page in one read: one at a time, the reads were most of a warm load.
    const keys = Array.from({ length: counters.pages }, (_, page) => counterPageKey(taskId, runId, page));
    const stored = await store.getMarkers(keys);
    for (let page = 0; page < counters.pages; page++) {
      const snap = asObject(stored.get(keys[page] as string) ?? undefined);
      // A page is rewritten only with a checkpoint of its generation: never a newer one than ours.
      if (typeof snap.gen !== "number" || snap.gen > counters.gen) throw missing(` (page ${page})`);
      // Which page holds an id (pageOf) is worked out when a snapshot next needs it.
      log.pages.push(bases.add(snap, ` of counter page ${page}`));
    }
    log.pageOf = null;
  }
  const visits: BuildingCounters<number> = bases.visits.size > 0 ? { base: bases.visits } : {};
  const outcomes: BuildingCounters<StageOutcome> = bases.outcomes.size > 0 ? { base: bases.outcomes } : {};
  const { counters: _ref, pendingCount: _count, ...delta } = raw as JsonObject;
  // The checkpoint's own fields, its counter entries included, pass the state's schema.
  const own = parseRunState(delta, taskId);
  await readPending(store, pendingCountOf(raw as JsonObject), { taskId, runId }, own, log);
  const ownVisits = asObject(delta.visits) as Record<string, number>;
  const ownOutcomes = asObject(delta.outcomes) as Record<string, StageOutcome>;
  addRecord(visits, ownVisits);
  addRecord(outcomes, ownOutcomes);
  const state: RunState = { ...own, visits, outcomes };
  if (counters.pages !== null) {
    for (const id of [...Object.keys(ownVisits), ...Object.keys(ownOutcomes)]) log.changed.add(id);
  }
  return { state, log };
}

/** The pending children a checkpoint names, read back into its state and log (pending-markers.ts). */
async function readPending(
  store: StoreOps,
  count: number,
  where: { taskId: string; runId: number },
  state: RunState,
  log: CounterLog,
): Promise<void> {
  if (count === 0) return;
  const loaded = await loadPending(store, where, count);
  state.pending = loaded.pending;
  log.pending = loaded.log;
}

/** The counters of a run's snapshot pages, read into one flat Map per counter. */
class SnapshotBases {
  readonly visits = new Map<string, number>();
  readonly outcomes = new Map<string, StageOutcome>();

  constructor(private readonly taskId: string) {}

  /** Adds a snapshot page's counters; returns the stage ids it holds. */
  add(snap: JsonObject, where: string): string[] {
    const ids: string[] = [];
    if (Array.isArray(snap.ids)) {
      // Columns, a stage id's counters at its index: JSON.parse makes no object shape per id.
      const pv = Array.isArray(snap.visits) ? snap.visits : [];
      const po = Array.isArray(snap.outcomes) ? snap.outcomes : [];
      snap.ids.forEach((id, i) => {
        if (typeof id !== "string")
          throw corruptedCheckpoint(this.taskId, `ids${where}: entry ${i} is not a stage id`);
        this.one(id, pv[i], po[i], where);
        ids.push(id);
      });
      return ids;
    }
    // Pages and the single marker written before columns: objects keyed by stage id.
    const pv = asObject(snap.visits);
    const po = asObject(snap.outcomes);
    for (const id in pv) {
      this.one(id, pv[id], undefined, where);
      ids.push(id);
    }
    for (const id in po) {
      this.one(id, undefined, po[id], where);
      if (!Object.hasOwn(pv, id)) ids.push(id);
    }
    return ids;
  }

  /** One stage's counters (null or absent: none). */
  private one(id: string, v: Json | undefined, o: Json | undefined, where: string): void {
    if (v !== undefined && v !== null) {
      if (typeof v !== "number")
        throw corruptedCheckpoint(this.taskId, `visits${where}: ${id} is not a number`);
      this.visits.set(id, v);
    }
    if (o !== undefined && o !== null) {
      if (typeof o !== "string")
        throw corruptedCheckpoint(this.taskId, `outcomes${where}: ${id} is not a string`);
      this.outcomes.set(id, o as StageOutcome);
    }
  }
}

/** A checkpoint's reference to its snapshot: its generation and page count (null: one marker). */
function counterRef(raw: Json): { gen: number; pages: number | null } | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const c = raw.counters;
  if (c === null || typeof c !== "object" || Array.isArray(c)) return null;
  if (typeof c.gen !== "number") return null;
  return {
    gen: c.gen,
    pages: typeof c.pages === "number" && Number.isSafeInteger(c.pages) && c.pages >= 0 ? c.pages : null,
  };
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
