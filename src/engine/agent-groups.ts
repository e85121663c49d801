import { hostname } from "node:os";
import type { GroupScope } from "../domain/process.js";
import type { AgentGroup } from "../domain/store.js";
import { errorMessage } from "../errors.js";
import { processStartTicks } from "../util/agent-groups.js";
import { GroupKiller, groupAlive } from "../util/process-group.js";
import type { EngineDeps } from "./deps.js";

/** SIGTERM first, SIGKILL after this: the old agent gets a moment to flush, not to keep editing. */
const TAKEOVER_GRACE_MS = 1000;

type Deps = Pick<EngineDeps, "store" | "clock" | "listener">;

/**
 * Runs a claimed task's work so that its agents die with their worker:
 * - before anything touches the worktree, every process group recorded for the task that is still
 *   alive on this host (its worker died, e.g. by SIGKILL) is killed and waited for;
 * - every group started with the scope handed to `fn` (the task's agents and gates get it through
 *   EngineDeps.groups) is recorded in the store with this host, and forgotten once it ended.
 *
 * Forgetting a group whose leader's start time is known waits for the next group's record (one
 * commit for both) or the end of `fn`: such a group is harmless in the store (a takeover finds it
 * gone, or its pid reused by a process started at another time, and only forgets it), and a stage
 * whose agent does nothing then costs one write for its group instead of two (issue 10). Without
 * the start time (no /proc) a reused pid cannot be told apart: the group is forgotten at once.
 */
export async function withAgentGroups<T>(
  deps: Deps,
  taskId: string,
  workerId: string,
  fn: (groups: GroupScope) => Promise<T>,
): Promise<T> {
  await killLeftoverGroups(deps, taskId);
  const host = hostname();
  const pending = new Set<Promise<void>>();
  /** Groups that ended and are still recorded. */
  const ended: number[] = [];
  /** Started groups whose leader's start time is unknown. */
  const untimed = new Set<number>();
  const track = (write: Promise<void>, what: string): void => {
    const p = write.catch((e: unknown) => {
      deps.listener({ type: "notice", taskId, message: `${taskId}: ${what} failed: ${errorMessage(e)}` });
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  /** Forgets the ended groups (and records `group`, when given) in one transaction. */
  const write = (group: AgentGroup | null): Promise<void> => {
    const gone = ended.splice(0);
    if (gone.length === 0 && group !== null) return deps.store.recordAgentGroup(group);
    return deps.store.transaction(async (tx) => {
      for (const pgid of gone) await tx.clearAgentGroup(taskId, pgid, host);
      if (group !== null) await tx.recordAgentGroup(group);
    });
  };
  const scope: GroupScope = {
    started: (pgid, startTicks) => {
      if (startTicks === null) untimed.add(pgid);
      track(
        write({ taskId, pgid, host, workerId, startTicks, startedAt: deps.clock.now() }),
        `recording agent process group ${pgid}`,
      );
    },
    ended: (pgid) => {
      ended.push(pgid);
      if (untimed.delete(pgid)) track(write(null), `clearing agent process group ${pgid}`);
    },
  };
  try {
    return await fn(scope);
  } finally {
    if (ended.length > 0) track(write(null), "clearing ended agent process groups");
    await Promise.all(pending);
  }
}

/**
 * Kills the task's recorded groups that still run on this host. A group whose leader is alive
 * but started at another time is a reused pid, not ours: it is forgotten, never signalled.
 * Groups recorded on another host are left alone (they cannot be signalled from here).
 */
export async function killLeftoverGroups(deps: Deps, taskId: string): Promise<number[]> {
  const host = hostname();
  const killed: number[] = [];
  for (const g of await deps.store.listAgentGroups(taskId)) {
    if (g.host !== host) continue;
    const ticks = processStartTicks(g.pgid);
    const reused = ticks !== null && g.startTicks !== null && ticks !== g.startTicks;
    if (!reused && groupAlive(g.pgid)) {
      const killer = new GroupKiller(g.pgid, TAKEOVER_GRACE_MS);
      killer.kill();
      await killer.gone();
      killed.push(g.pgid);
      deps.listener({
        type: "notice",
        taskId,
        message: `${taskId}: stopped agent process group ${g.pgid} left running by worker ${g.workerId}`,
      });
    }
    await deps.store.clearAgentGroup(taskId, g.pgid, g.host);
  }
  return killed;
}
