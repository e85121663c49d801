import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

const WORKFLOW = `workflow "gated" {
    start "implement"
    stage "implement" kind="agent"
    stage "sign_off" kind="human"
    stage "done" kind="exit"
    stage "refused" kind="exit" verdict="NEEDS_DISCUSSION" reason="a person refused the change"
    transition from="implement" to="sign_off"
    transition from="sign_off" to="done" when=#"outcome("sign_off") == "success""#
    transition from="sign_off" to="refused"
}
`;

describe("a `human` stage", () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => runCli(args, { cwd: repo, env });

  beforeEach(() => {
    const root = tempDir();
    repo = join(root, "repo");
    env = isolatedEnv(root);
    createDemoRepo(repo);
    expect(cli("init").code).toBe(0);
    writeFileSync(
      join(repo, "impl.mjs"),
      "export default async (req) => { (await import('node:fs')).writeFileSync(req.cwd + '/x.txt', 'x'); return { text: 'ok' }; };\n",
    );
    writeFileSync(join(repo, "fixpoint.kdl"), 'agent "implementer" backend="scripted" script="./impl.mjs"\n');
    mkdirSync(join(repo, ".fixpoint/workflows"), { recursive: true });
    writeFileSync(join(repo, ".fixpoint/workflows/gated.kdl"), WORKFLOW);
    expect(cli("add", "change that needs a sign-off", "--workflow", "gated").code).toBe(0);
  });

  it("pauses the task until `fixpoint approve`, then the task completes", () => {
    expect(cli("work").stdout).toContain("t-1 paused: waiting for a human at stage sign_off");
    const waiting = JSON.parse(cli("status", "--json").stdout) as {
      status: string;
      reason: string;
      current_stage: string;
    }[];
    expect(waiting[0]).toMatchObject({ status: "needs_human", current_stage: "sign_off" });
    expect(waiting[0]?.reason).toContain("fixpoint approve t-1");
    expect(cli("approve", "t-1").code).toBe(0);
    const done = cli("work");
    expect(done.stdout).toContain("APPROVED");
    expect(cli("logs", "t-1").stdout).toContain("human.approved");
  });

  it("`fixpoint reject` ends it with the workflow's verdict and reason", () => {
    cli("work");
    expect(cli("reject", "t-1", "--reason", "wrong approach").code).toBe(0);
    cli("work");
    const t = JSON.parse(cli("show", "t-1", "--json").stdout) as {
      task: { final_verdict: string; reason: string };
    };
    expect(t.task.final_verdict).toBe("NEEDS_DISCUSSION");
    expect(t.task.reason).toContain("a person refused the change");
    expect(t.task.reason).toContain("rejected by a human: wrong approach");
  });
});
