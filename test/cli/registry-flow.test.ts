import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { FIXTURE_AGENTS, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

interface FindingJson {
  id: string;
  status: string;
  attempts: { cycle: number; status: string; justification: string; rejection: string | null }[];
}

describe("the registry as a user sees it", () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli(args, { cwd: repo, env: { ...env, ...extra }, timeoutMs: 90_000 });

  beforeEach(() => {
    const root = tempDir();
    repo = join(root, "repo");
    env = isolatedEnv(root);
    createDemoRepo(repo);
    expect(cli(["init"]).code).toBe(0);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
  });

  it("a weak excuse is rejected: the finding stays open, the rejection is shown, the loop ends MAX_CYCLES_REACHED", () => {
    expect(cli(["add", "Add mean() and median()", "--max-cycles", "2"]).code).toBe(0);
    const work = cli(["work", "t-1"], { FIXPOINT_TEST_FIXER_MODE: "weak" });
    expect(work.code).toBe(1);
    expect(work.stdout).toContain("MAX_CYCLES_REACHED");
    const findings = JSON.parse(cli(["findings", "t-1", "--json"]).stdout) as FindingJson[];
    const mean = findings.find((f) => f.attempts.some((a) => a.status === "rejected"));
    expect(mean?.status).toBe("open");
    expect(mean?.attempts.map((a) => a.status)).toEqual(["rejected", "rejected"]);
    const show = cli(["show", "t-1"]).stdout;
    expect(show).toContain("LAST JUSTIFICATION");
    expect(show).toMatch(/rejected: weak justification/i);
    expect(show).toMatch(/cycle 1: 1 resolved, 1 still open, 0 new, 0 reopened/);
    // Cost and tokens: status agrees with the stage records, and shows them.
    const detail = JSON.parse(cli(["show", "t-1", "--json"]).stdout) as {
      stages: { cost_usd: number; tokens: { input: number; output: number } }[];
      totals: { cost_usd: number; tokens: number };
    };
    const listed = JSON.parse(cli(["status", "--json"]).stdout) as { cost_usd: number; tokens: number }[];
    expect(detail.totals.cost_usd).toBeGreaterThan(0);
    expect(listed[0]?.cost_usd).toBeCloseTo(
      detail.stages.reduce((a, s) => a + s.cost_usd, 0),
      6,
    );
    expect(listed[0]?.tokens).toBe(detail.totals.tokens);
    expect(cli(["status"]).stdout).toContain(`$${detail.totals.cost_usd.toFixed(2)}`);
  });

  it("a deferred finding comes back, then becomes a follow-up task; resume sends the stored blocking findings", () => {
    expect(cli(["add", "Add mean() and median()", "--max-cycles", "2"]).code).toBe(0);
    const work = cli(["work"], { FIXPOINT_TEST_FIXER_MODE: "defer" });
    expect(work.stdout).toContain("MAX_CYCLES_REACHED");
    const findings = JSON.parse(cli(["findings", "t-1", "--json"]).stdout) as FindingJson[];
    const deferred = findings.find((f) => f.status === "deferred");
    // Deferred comes back: the fixer had to answer for it in both fix cycles.
    expect(deferred?.attempts.map((a) => a.cycle)).toEqual([1, 2]);

    const status = cli(["status", "--json"]).stdout;
    const tasks = JSON.parse(status) as { id: string; status: string; parent_id: string | null }[];
    const follow = tasks.find((t) => t.parent_id === "t-1");
    expect(follow?.id).toBe(`t-1.${deferred?.id}`);
    expect(follow?.status).toBe("needs_human");
    expect(cli(["status"]).stdout).toContain("↳ from t-1");

    const resume = cli(["resume", "t-1"]);
    expect(resume.stdout).toMatch(/Using review follow-up for resume: 1 findings from run 1/);
    expect(resume.stdout).toContain("APPROVED");
    expect(resume.code).toBe(0);
  });

  it("improve queues a task on the same branch with the last review and the open findings", () => {
    expect(cli(["add", "Add mean() and median()", "--max-cycles", "1"]).code).toBe(0);
    cli(["work"], { FIXPOINT_TEST_FIXER_MODE: "weak" });
    const improve = cli(["improve", "t-1"]);
    expect(improve.code).toBe(0);
    expect(improve.stdout).toMatch(/queued t-2 {2}improve/);
    expect(improve.stdout).toMatch(/t-1-r\d+-review-1\.md/);
    const shown = JSON.parse(cli(["show", "t-2", "--json"]).stdout) as {
      task: { branch: string; parent_id: string };
      findings: FindingJson[];
    };
    const origin = JSON.parse(cli(["show", "t-1", "--json"]).stdout) as { task: { branch: string } };
    expect(shown.task.branch).toBe(origin.task.branch);
    expect(shown.task.parent_id).toBe("t-1");
    expect(shown.findings.map((f) => f.status)).toEqual(["open"]);
    const work = cli(["work", "t-2"]);
    expect(work.stdout).toContain("APPROVED");
    expect(work.code).toBe(0);
  });
});

describe("a run recorded before review follow-ups were stored", () => {
  it("still resumes: the fix loop restarts from the registry's open findings", async () => {
    const root = tempDir();
    const repo = join(root, "repo");
    const env = isolatedEnv(root);
    const cli = (args: string[], extra: Record<string, string> = {}) =>
      runCli(args, { cwd: repo, env: { ...env, ...extra }, timeoutMs: 90_000 });
    createDemoRepo(repo);
    expect(cli(["init"]).code).toBe(0);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
    expect(cli(["add", "Add mean() and median()", "--max-cycles", "1"]).code).toBe(0);
    expect(cli(["work"], { FIXPOINT_TEST_FIXER_MODE: "weak" }).stdout).toContain("MAX_CYCLES_REACHED");
    // Make the run look like one written by an older fixpoint: no lastReviewIssues in its meta.
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(repo, ".fixpoint/fixpoint.db"));
    db.prepare("UPDATE runs SET meta = '{}'").run();
    db.close();
    const resume = cli(["resume", "t-1"]);
    expect(resume.stdout).toContain(
      "Resuming the fix loop from the 1 open findings (run 1 stored no review follow-up)",
    );
    expect(resume.stdout).toContain("APPROVED");
    expect(resume.code).toBe(0);
  });
});
