import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { AgentGroup, Store } from "../../src/domain/store.js";
import { withAgentGroups } from "../../src/engine/agent-groups.js";
import { openStore } from "../../src/store/open.js";
import { createProcessRunner } from "../../src/util/process-runner.js";
import { makeTempDir } from "../helpers/temp.js";
import { newTask } from "../store/samples.js";

/**
 * The agent groups a worker records (issue 14) with one write per group (issue 10): a group that
 * ended is forgotten in the same commit that records the next one, or when the task's work ends.
 */
describe("recording agent process groups", () => {
  it("forgets an ended group with the next group's record, and every group once the work ends", async () => {
    await withTask(async ({ store, taskId, root, deps, notices }) => {
      const runner = createProcessRunner();
      const seen: AgentGroup[][] = [];
      await withAgentGroups(deps, taskId, "w-1", async (groups) => {
        const first = await runner.run({ command: "true", args: [], cwd: root, groups });
        // The first group ended; its record stays until the next one is written.
        seen.push(await settled(store, taskId, [first.pid]));
        await new Promise((r) => setTimeout(r, 20));
        seen.push(await store.listAgentGroups(taskId));
        const second = await runner.run({ command: "true", args: [], cwd: root, groups });
        seen.push(await settled(store, taskId, [second.pid]));
      });

      const [first, later, second] = seen.map((groups) => groups.map((g) => `${g.pgid}@${g.host}`));
      // The first group, ended, is still recorded; the second's record forgot it.
      expect(first).toHaveLength(1);
      expect(later).toEqual(first);
      expect(first?.[0]).toMatch(new RegExp(`@${hostname()}$`));
      expect(second).toHaveLength(1);
      expect(second).not.toEqual(first);
      // Afterwards: nothing left, and no write failed.
      expect(await store.listAgentGroups(taskId)).toEqual([]);
      expect(notices).toEqual([]);
    });
  });

  it("a group whose leader's start time is unknown (no /proc) is forgotten as soon as it ends", async () => {
    await withTask(async ({ store, taskId, deps }) => {
      let during: AgentGroup[] = [];
      await withAgentGroups(deps, taskId, "w-1", async (groups) => {
        // Its pid could be reused by a stranger that a takeover could not tell apart.
        groups.started(4_000_001, null);
        await settled(store, taskId, [4_000_001]);
        groups.ended(4_000_001);
        for (let i = 0; i < 200 && (await store.listAgentGroups(taskId)).length > 0; i++) {
          await new Promise((r) => setTimeout(r, 5));
        }
        during = await store.listAgentGroups(taskId);
      });
      expect(during).toEqual([]);
    });
  });

  it("a group still running when the work ends stays recorded for the next worker", async () => {
    await withTask(async ({ store, taskId, root, deps }) => {
      let pid = 0;
      await withAgentGroups(deps, taskId, "w-1", async (groups) => {
        // The leader exits at once and leaves a member of its group behind.
        const r = await createProcessRunner().run({
          command: "sh",
          args: ["-c", "sleep 30 > /dev/null 2>&1 &"],
          cwd: root,
          groups,
        });
        pid = r.pid ?? 0;
      });
      expect((await store.listAgentGroups(taskId)).map((g) => g.pgid)).toEqual([pid]);
      process.kill(-pid, "SIGKILL");
    });
  });
});

interface TaskContext {
  store: Store;
  taskId: string;
  root: string;
  deps: Parameters<typeof withAgentGroups>[0];
  /** The notices withAgentGroups sent (a write that failed). */
  notices: string[];
}

/** A SQLite store on a real file holding one task, closed after `fn`. */
async function withTask(fn: (t: TaskContext) => Promise<void>): Promise<void> {
  const root = makeTempDir("agent-groups-");
  const store = await openStore("sqlite", root);
  try {
    const task = await store.createTask(newTask({ repo: root }), Date.now());
    const notices: string[] = [];
    const deps: TaskContext["deps"] = {
      store,
      clock: { now: () => Date.now(), sleep: async () => {} },
      listener: (e) => {
        if (e.type === "notice") notices.push(e.message);
      },
    };
    await fn({ store, taskId: task.id, root, deps, notices });
  } finally {
    await store.close();
  }
}

/** The recorded groups once the record of each of `pids` was written (the write is not awaited). */
async function settled(store: Store, taskId: string, pids: (number | undefined)[]): Promise<AgentGroup[]> {
  for (let i = 0; i < 200; i++) {
    const groups = await store.listAgentGroups(taskId);
    if (pids.every((p) => groups.some((g) => g.pgid === p))) return groups;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`groups ${pids.join(", ")} were never recorded`);
}
