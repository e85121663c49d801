import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { prepareRetry } from "../../src/cli/commands/resume.js";
import { defaultSqlitePath } from "../../src/store/open.js";
import { approveAll, fixEverything, hang, implementFeature } from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("a corrupted checkpoint", () => {
  it("fails only its own task, with a clear error naming it and `fixpoint retry`; the next task still completes", async () => {
    const controller = new AbortController();
    const approve = approveAll();
    const reviewer: ScriptHandler = (req, ctx) => {
      if (req.taskId === "t-1" && !controller.signal.aborted) {
        controller.abort("worker killed");
        return hang()(req, ctx);
      }
      return approve(req, ctx);
    };
    const h = await harness({
      agents: { implementer: implementFeature(), reviewer, fixer: fixEverything() },
    });
    const t1 = await h.addTask({ title: "First task" });
    await h.runAll({ signal: controller.signal });
    const [run] = await h.runs(t1.id);
    expect(run?.status).toBe("interrupted");

    // Make it look like a worker died mid-run (its run still `running`, its lease expired) and
    // its checkpoint rows were damaged on disk.
    const db = new Database(defaultSqlitePath(h.root));
    try {
      db.prepare("UPDATE runs SET status = 'running' WHERE id = ?").run(run?.id);
      db.prepare(
        "UPDATE tasks SET status = 'running', worker_id = 'elsewhere:1:x', lease_expires_at = 1 WHERE id = ?",
      ).run(t1.id);
      const n = db
        .prepare(`UPDATE checkpoints SET state = '{"version": 1, "next": "rev' WHERE run_id = ?`)
        .run(run?.id).changes;
      expect(n).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    const t2 = await h.addTask({ title: "Second task" });
    const summary = await h.runAll();

    expect(summary.errors).toHaveLength(1);
    const message = summary.errors[0]?.message ?? "";
    expect(summary.errors[0]?.taskId).toBe(t1.id);
    expect(message).toContain(`task ${t1.id}`);
    expect(message).toContain("checkpoint is corrupted");
    expect(message).toContain(`fixpoint retry ${t1.id}`);
    const failed = await h.task(t1.id);
    expect(failed.status).toBe("failed");
    expect(failed.reason).toBe(message);
    expect((await h.events(t1.id)).some((e) => e.type === "task.error")).toBe(true);

    expect(await h.task(t2.id)).toMatchObject({ status: "completed", finalVerdict: "APPROVED" });
    expect(await h.branchLog(t2.id)).toEqual(["Second task — implementation"]);

    // The suggested way out works: a new run from scratch, same branch, same registry.
    await prepareRetry(h.project(), failed);
    await h.runAll();
    expect(await h.task(t1.id)).toMatchObject({ status: "completed", finalVerdict: "APPROVED" });
  });
});
