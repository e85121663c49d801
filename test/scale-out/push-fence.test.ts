/**
 * The push of a task branch is fenced like a store write: a worker whose task another worker took
 * over while its agent ran — before its own lease keeper noticed — must not push that stage's
 * commit over the new owner's branch. Before the push it renews its lease in one round trip; the
 * store says the lease moved on, and nothing reaches the remote.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approveAll } from "../helpers/agent-replies.js";
import { git, tempDir } from "../helpers/cli.js";
import { harnessPerTest } from "../helpers/engine-harness.js";
import { taskBranches } from "./project.js";

const harness = harnessPerTest();

describe("a push after the lease moved on", () => {
  it("is not made: the remote never sees the stage's commit, and nothing is recorded", async () => {
    const bare = join(tempDir(), "remote.git");
    git(process.cwd(), "init", "-q", "--bare", "-b", "main", bare);
    let stolen = false;
    const h = await harness({
      agents: {
        implementer: async (req) => {
          writeFileSync(join(req.cwd, "work.txt"), "the implementer's work\n");
          return { text: "done" };
        },
        reviewer: approveAll(),
        fixer: approveAll(),
      },
    });
    h.repo.git(["remote", "add", "origin", bare]);
    h.deps.config.defaults.pushRemote = "origin";
    // Another worker takes the task over just after the stage's work is committed, before the
    // push (its lease looked expired to it); this worker's keeper (renewing every 2 s) has not
    // noticed yet, and its reply was saved while it still held the lease.
    const commitAll = h.deps.git.commitAll.bind(h.deps.git);
    h.deps.git.commitAll = async (...args) => {
      const made = await commitAll(...args);
      const taken = await h.deps.store.claimTask({
        workerId: "elsewhere:1:new",
        leaseMs: 600_000,
        now: Date.now() + 3_600_000,
      });
      stolen ||= taken !== null;
      return made;
    };
    const t = await h.addTask();
    const summary = await h.runAll();

    expect(stolen).toBe(true);
    expect(summary.errors).toEqual([]);
    const notices = h.engineEvents.flatMap((e) => (e.type === "notice" ? [e.message] : []));
    expect(notices).toEqual([expect.stringMatching(/^t-1: lease lost: /)]);
    // The stage's commit exists in this clone only.
    expect(await h.branchLog(t.id)).toHaveLength(1);
    expect(taskBranches(bare)).toEqual([]);
    const task = await h.task(t.id);
    expect(task.workerId).toBe("elsewhere:1:new");
    expect((await h.stages(t.id)).map((s) => s.stageId)).not.toContain("implement");
    expect((await h.events(t.id)).map((e) => e.type)).not.toContain("task.finished");
  });
});
