import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { prepareResume } from "../../src/cli/commands/resume.js";
import { parseRunState } from "../../src/engine/state.js";
import {
  answerAll,
  byStage,
  finding,
  fixEverything,
  hang,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

const reviewer = byStage({
  review_code: (req) =>
    req.cycle === 0
      ? reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")])
      : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved")),
});

describe("CHANGES_REQUESTED when a stage cannot finish", () => {
  it("an implementer that exits non-zero stops the run, and the reason names the stage", async () => {
    const h = await harness({
      agents: {
        implementer: () => ({
          fail: { kind: "exit_nonzero", message: "agent exited 1: ENOSPC while writing" },
        }),
        reviewer,
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "CHANGES_REQUESTED" });
    expect(task.reason).toContain("implement failed: agent exited 1: ENOSPC while writing");
    expect(task.reason).toContain(`fixpoint retry ${t.id}`);
    expect(h.callsOf("reviewer")).toHaveLength(0);
    expect((await h.runs(t.id)).map((r) => r.status)).toEqual(["failed"]);
  });

  it("an implementer that never answers is stopped by its timeout", async () => {
    const started = Date.now();
    const h = await harness({
      timeouts: { implementer: "300ms" },
      agents: { implementer: hang(), reviewer, fixer: fixEverything() },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "CHANGES_REQUESTED" });
    expect(task.reason).toMatch(/implement failed: timed out after 300ms/);
    expect(Date.now() - started).toBeLessThan(20_000);
    const [stage] = await h.stages(t.id);
    expect(stage).toMatchObject({ stageId: "implement", outcome: "fail", failureClass: "timeout" });
  });

  it("a cancel mid-fix leaves the task resumable, and resuming completes it", async () => {
    const controller = new AbortController();
    let fixes = 0;
    const fixer: ScriptHandler = (req, ctx) => {
      fixes += 1;
      if (fixes === 1) {
        // Half-done work, then the worker is stopped (Ctrl-C) while the agent is still busy.
        writeFileSync(
          join(req.cwd, "src/app.js"),
          `${readFileSync(join(req.cwd, "src/app.js"), "utf8")}// half a fix\n`,
        );
        controller.abort("SIGINT");
        return hang()(req, ctx);
      }
      return fixEverything()(req, ctx);
    };
    const h = await harness({ agents: { implementer: implementFeature(), reviewer, fixer } });
    const t = await h.addTask();
    await h.runAll({ signal: controller.signal });

    const [run] = await h.runs(t.id);
    expect(run?.status).toBe("interrupted");
    const cp = await h.store.getCheckpoint(run?.id ?? -1);
    expect(parseRunState(cp?.state, t.id).next).toBe("fix");
    const stopped = await h.task(t.id);
    expect(stopped.reason).toContain("interrupted (SIGINT) during stage fix");
    expect(stopped.reason).toContain(`fixpoint resume ${t.id}`);

    await prepareResume(h.project(), stopped);
    await h.runAll();

    const task = await h.task(t.id);
    expect(task).toMatchObject({
      status: "completed",
      finalVerdict: "APPROVED",
      reason: "approved after 1 fix cycle",
    });
    expect(fixes).toBe(2);
    // The cancelled agent's half-done work was committed, not lost; the resumed fix is still cycle 1.
    expect(await h.branchLog(t.id)).toEqual([
      "Add double() — implementation",
      "WIP: Address review feedback (cycle 1) — stopped (cancelled)",
      "Address review feedback (cycle 1)",
    ]);
    expect((await h.registry(t.id)).map((f) => f.status)).toEqual(["resolved"]);
  });
});
