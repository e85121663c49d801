import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { openStore } from "../../src/store/open.js";
import { CLI, git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";
import { fillTasks } from "../helpers/fill-tasks.js";

/** What a new user hit (issue 14 items 7–8): each ends with one clear line and loses nothing. */
describe("CLI rough edges", () => {
  let root: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    root = tempDir();
    repo = join(root, "repo");
    env = isolatedEnv(root);
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig());
  });

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("init keeps .fixpoint/ out of every commit through .git/info/exclude, without touching tracked files", () => {
    expect(readFileSync(join(repo, ".git/info/exclude"), "utf8").split("\n")).toContain(".fixpoint/");
    expect(existsSync(join(repo, ".gitignore"))).toBe(false);
    // fixpoint.kdl is the user's to commit; the store never shows up.
    expect(git(repo, "status", "--porcelain")).toBe("?? fixpoint.kdl\n");
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    const lines = readFileSync(join(repo, ".git/info/exclude"), "utf8").split("\n");
    expect(lines.filter((l) => l === ".fixpoint/")).toHaveLength(1);
  });

  it("read-only commands refuse a repository that was never initialised, and create nothing there", () => {
    const other = join(root, "other");
    createDemoRepo(other);
    for (const args of [["status"], ["show", "t-1"], ["findings", "t-1"], ["logs", "t-1"]]) {
      const r = runCli(args, { cwd: other, env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toBe(
        `fixpoint: ${other} is not a fixpoint project (no fixpoint.kdl or .fixpoint/); run \`fixpoint init\` there first\n`,
      );
    }
    const doctor = runCli(["doctor", "--offline", "--json"], { cwd: other, env });
    const store = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === "store");
    expect(store).toMatchObject({ status: "warn", fix: "run `fixpoint init` there" });
    expect(existsSync(join(other, ".fixpoint"))).toBe(false);
  });

  it("--prompt-file naming a missing file exits 2 with the path", () => {
    const r = runCli(["add", "--prompt-file", "missing.txt"], { cwd: repo, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`fixpoint: --prompt-file ${join(repo, "missing.txt")}: no such file\n`);
  });

  it("doctor fails a command agent whose script does not exist", () => {
    const dir = join(root, "doctor-repo");
    createDemoRepo(dir);
    writeFileSync(join(dir, "present.mjs"), "");
    writeFileSync(
      join(dir, "fixpoint.kdl"),
      'agent "implementer" backend="command" command="node" "missing.mjs"\nagent "reviewer" backend="command" command="node" "present.mjs"\nagent "fixer" backend="command" command="node" "present.mjs"\n',
    );
    const r = runCli(["doctor", "--offline", "--json"], { cwd: dir, env });
    expect(r.code).toBe(3);
    const checks: { name: string; status: string; detail: string }[] = JSON.parse(r.stdout).checks;
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName["agent implementer"]?.status).toBe("fail");
    expect(byName["agent implementer"]?.detail).toContain("script missing.mjs not found");
    expect(byName["agent reviewer"]?.status).toBe("ok");
  });

  it("retry of an approved task refuses without --force; show --json has every parallel reviewer's verdict", () => {
    expect(runCli(["add", "Add a mean function"], { cwd: repo, env }).code).toBe(0);
    const ran = runCli(["work"], { cwd: repo, env, timeoutMs: 120_000 });
    expect(ran.code).toBe(0);
    const show = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: repo, env }).stdout);
    expect(show.task.final_verdict).toMatch(/^APPROVED/);
    const reviews: { stage: string; kind: string; verdict: string | null }[] = show.stages.filter(
      (s: { kind: string }) => s.kind === "review",
    );
    expect(reviews.length).toBeGreaterThanOrEqual(3);
    for (const s of reviews)
      expect(s.verdict, s.stage).toMatch(
        /^(APPROVED|APPROVED_WITH_FOLLOWUPS|CHANGES_REQUESTED|NEEDS_DISCUSSION)$/,
      );

    const refused = runCli(["retry", "t-1", "--queue"], { cwd: repo, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --force");
    const runsBefore = show.runs.length;
    expect(JSON.parse(runCli(["show", "t-1", "--json"], { cwd: repo, env }).stdout).runs).toHaveLength(
      runsBefore,
    );

    const forced = runCli(["retry", "t-1", "--force", "--queue"], { cwd: repo, env });
    expect(forced.code).toBe(0);
    const after = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: repo, env }).stdout);
    expect(after.task.status).toBe("queued");
    expect(after.runs).toHaveLength(runsBefore + 1);
    expect(runCli(["cancel", "t-1"], { cwd: repo, env }).code).toBe(0);
  }, 150_000);

  it("resume of a task whose worker died says when its lease expires, then takes it over", async () => {
    const added = JSON.parse(runCli(["add", "Add a max function", "--json"], { cwd: repo, env }).stdout);
    const store = await openStore("sqlite", repo);
    try {
      // A worker on another machine claimed it and vanished: its lease runs for another minute.
      const held = await store.claimTask({
        workerId: "elsewhere:1:x",
        leaseMs: 60_000,
        now: Date.now(),
        ids: [added.id],
      });
      expect(held?.id).toBe(added.id);
    } finally {
      await store.close();
    }
    const early = runCli(["resume", added.id, "--queue"], { cwd: repo, env });
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(
      /is running \(its worker's lease expires at \S+Z \(in (59|60) s\); run this again then/,
    );

    const store2 = await openStore("sqlite", repo);
    try {
      // Same story, but the lease ran out a second ago.
      await store2.updateTask(added.id, { status: "queued" }, Date.now());
      await store2.claimTask({
        workerId: "elsewhere:1:y",
        leaseMs: 1,
        now: Date.now() - 1000,
        ids: [added.id],
      });
    } finally {
      await store2.close();
    }
    const late = runCli(["resume", added.id, "--queue"], { cwd: repo, env });
    expect(late.stderr).toBe(`${added.id}: its worker's lease had expired; taking the task over\n`);
    expect(late.code).toBe(0);
    const status = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout);
    expect(status.find((t: { id: string }) => t.id === added.id)?.status).toBe("queued");
  });

  it("`fixpoint status | head -1` and `status --json | head -c 100` end quietly when the reader goes away", async () => {
    await fillTasks(repo, 1500, (i) => `filler task ${i} ${"x".repeat(40)}`);
    const r = spawnSync("sh", ["-c", `"${process.execPath}" "${CLI}" status | head -1`], {
      cwd: repo,
      env,
      encoding: "utf8",
    });
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toBe("");
    // `status --json` writes its pages from the thread pool (Io.outPage): the closed pipe ends
    // it quietly too, with status 0 (pipefail reports fixpoint's own).
    const json = spawnSync(
      "bash",
      ["-c", `set -o pipefail; "${process.execPath}" "${CLI}" status --json | head -c 100`],
      { cwd: repo, env, encoding: "utf8" },
    );
    expect(json.stdout).toHaveLength(100);
    expect(json.stdout).toMatch(/^\[\{"id":"t-\d+",/);
    expect(json.stderr).toBe("");
    expect(json.status).toBe(0);
  });
});
