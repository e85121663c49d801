import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approveAll } from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("commits an agent makes itself", () => {
  it("are detected, kept on the branch and recorded with the stage; what it left uncommitted is committed after them", async () => {
    const h = await harness({
      agents: {
        implementer: (req) => {
          const git = (...args: string[]) =>
            execFileSync("git", ["-c", "user.name=agent", "-c", "user.email=agent@localhost", ...args], {
              cwd: req.cwd,
            });
          writeFileSync(join(req.cwd, "one.txt"), "first\n");
          git("add", "one.txt");
          git("commit", "-q", "-m", "agent: first step");
          writeFileSync(join(req.cwd, "two.txt"), "second\n");
          git("add", "two.txt");
          git("commit", "-q", "-m", "agent: second step");
          writeFileSync(join(req.cwd, "three.txt"), "left uncommitted\n");
          return { text: "done" };
        },
        reviewer: approveAll(),
        fixer: approveAll(),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const log = await h.branchLog(t.id);
    expect(log.some((s) => s.includes("agent: first step"))).toBe(true);
    expect(log.some((s) => s.includes("agent: second step"))).toBe(true);
    expect(log.some((s) => s.includes("— implementation"))).toBe(true);

    const commits = (await h.events(t.id)).filter((e) => e.type === "stage.commits");
    expect(commits).toHaveLength(1);
    const data = commits[0]?.data as {
      stage: string;
      agentCommits: { subject: string }[];
      committed: string | null;
    };
    expect(data.stage).toBe("implement");
    expect(data.agentCommits.map((c) => c.subject)).toEqual(["agent: first step", "agent: second step"]);
    expect(data.committed).toMatch(/^[0-9a-f]{40}$/);

    const implement = (await h.stages(t.id)).find((s) => s.stageId === "implement");
    expect(implement?.headAfter).toBe(data.committed);
  });
});
