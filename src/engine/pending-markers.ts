import type { StoreOps } from "../domain/store.js";
import type { Json, JsonObject } from "../domain/types.js";
import { corruptedCheckpoint, type PendingChild } from "./state.js";

/**
 * A parallel block's finished children, kept out of the checkpoint row (issue 10: a wide block).
 * Until the block merges them, each finished child's effect (a review's whole output, say) is
 * pending, and a checkpoint that held them all copied every earlier child's into each child's
 * record: a block of 3,000 children spent 12 ms per child at its end against 1.5 ms at its start
 * (18 s in all; 1.7 s without the copy). So each child's entry is written once, as the marker
 * `pending:<task>:<run>:<n>` (n: its place among the block's finished children), in its own
 * record's commit, and the checkpoint says only how many there are. Markers of an earlier block
 * are overwritten by the next one's; a checkpoint never names more than its block wrote.
 */

/** What a run's checkpoints have written of its current block's pending children (in memory). */
export interface PendingLog {
  /** The children written, in marker order; `written` holds the same ids. */
  ids: string[];
  written: Set<string>;
  /**
   * The block's pending map they were written from: a block works on a map of its own
   * (parallel.ts, workingCopy), so another map is another block, or the same one read back.
   */
  of: Record<string, PendingChild> | null;
}

export function newPendingLog(): PendingLog {
  return { ids: [], written: new Set(), of: null };
}

export function pendingMarkerKey(taskId: string, runId: number, n: number): string {
  return `pending:${taskId}:${runId}:${n}`;
}

/**
 * Whether `log` is of the block `pending` holds: the same map, with children written from it.
 * O(1), where asking a large object whether it has any key at all (`for…in`, `Object.keys`)
 * enumerates all of them: at 10,000 children that was most of the block's time.
 */
function sameBlock(pending: Record<string, PendingChild>, log: PendingLog): boolean {
  return log.of === pending && log.ids.length > 0;
}

function isEmpty(pending: Record<string, PendingChild>): boolean {
  for (const _ in pending) return false;
  return true;
}

/**
 * The markers to write with a checkpoint of `pending`, after the stages `touched` were recorded,
 * and the count the checkpoint names (0: no block is pending). Updates `log`.
 */
export function pendingWrites(
  pending: Record<string, PendingChild>,
  log: PendingLog,
  touched: readonly string[],
  where: { taskId: string; runId: number },
): { count: number; markers: { key: string; value: JsonObject }[] } {
  const ongoing = sameBlock(pending, log);
  if (!ongoing) {
    // Another block, or this one read back (its markers are written again, once), or none.
    log.ids = [];
    log.written.clear();
    log.of = pending;
    // Enumerated only here: `pending` is then empty, or a new block's first child, or read back.
    if (isEmpty(pending)) return { count: 0, markers: [] };
  }
  const markers: { key: string; value: JsonObject }[] = [];
  const add = (id: string) => {
    const child = pending[id];
    if (child === undefined || log.written.has(id)) return;
    markers.push({
      key: pendingMarkerKey(where.taskId, where.runId, log.ids.length),
      value: { child: id, ...child } as unknown as JsonObject,
    });
    log.ids.push(id);
    log.written.add(id);
  };
  // A block new to the log (its first child, or children read back) has none written yet.
  if (log.ids.length === 0) for (const id of Object.keys(pending)) add(id);
  else for (const id of touched) add(id);
  return { count: log.ids.length, markers };
}

/**
 * The pending children a checkpoint names (`count` markers), in the order they finished, with the
 * log to continue writing from. Throws FixpointError("checkpoint") when one is missing.
 */
export async function loadPending(
  store: Pick<StoreOps, "getMarkers">,
  where: { taskId: string; runId: number },
  count: number,
): Promise<{ pending: Record<string, PendingChild>; log: PendingLog }> {
  const keys = Array.from({ length: count }, (_, n) => pendingMarkerKey(where.taskId, where.runId, n));
  const stored = count > 0 ? await store.getMarkers(keys) : new Map<string, Json>();
  const pending: Record<string, PendingChild> = {};
  const log = newPendingLog();
  keys.forEach((key, n) => {
    const value = stored.get(key);
    if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value))
      throw corruptedCheckpoint(where.taskId, `pending child ${n} (marker ${key}) is missing`);
    const { child, ...entry } = value;
    if (typeof child !== "string")
      throw corruptedCheckpoint(where.taskId, `pending child ${n} (marker ${key}) names no stage`);
    pending[child] = entry as unknown as PendingChild;
    log.ids.push(child);
    log.written.add(child);
  });
  log.of = pending;
  return { pending, log };
}

/** The pending count a checkpoint row names (0 when it names none). */
export function pendingCountOf(raw: JsonObject): number {
  const n = raw.pendingCount;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
}
