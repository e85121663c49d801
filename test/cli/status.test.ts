/**
 * `fixpoint status`: the reason column, the filters (`--status`, `--since`, `--needs-me`), the
 * totals line, and the same filters on `--json`, against a real SQLite store in a temp repo.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { isolatedEnv, runCli, tempDir } from "../helpers/cli.js";
import { newTask, stage } from "../store/samples.js";

let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const cli = (...args: string[]) => runCli(args, { cwd: repo, env });
const HOUR = 3_600_000;

/**
 * Six tasks, one per situation the morning asks about; `t-1`..`t-4` changed 3 days ago, the rest now.
 */
beforeAll(async () => {
  root = tempDir("fixpoint-status-");
  repo = join(root, "repo");
  env = isolatedEnv(root);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  writeFileSync(join(repo, "fixpoint.kdl"), "// status test\n");
  const store = await openStore("sqlite", repo);
  try {
    const old = Date.now() - 72 * HOUR;
    const now = Date.now();
    const mk = (title: string) => store.createTask(newTask({ title, repo }), old);
    const approved = await mk("approved one");
    const limit = await mk("hit the cycle limit");
    const waiting = await mk("waits at a human stage");
    const failed = await mk("agent crashed");
    const budget = await mk("ran out of money");
    await store.createTask(newTask({ title: "still queued", repo }), now);
    await store.updateTask(approved.id, { status: "completed", finalVerdict: "APPROVED", cycle: 1 }, old);
    await store.updateTask(
      limit.id,
      {
        status: "needs_human",
        finalVerdict: "MAX_CYCLES_REACHED",
        cycle: 3,
        reason: "2 blocking\nfindings left",
      },
      old,
    );
    await store.updateTask(waiting.id, { status: "needs_human", currentStage: "sign-off" }, old);
    await store.updateTask(failed.id, { status: "failed", reason: "claude exited 137" }, old);
    await store.updateTask(budget.id, { status: "needs_human", finalVerdict: "BUDGET_EXHAUSTED" }, now);
    const run = await store.createRun(limit.id, "start", {}, old);
    await store.commitStage({
      taskId: limit.id,
      runId: run.id,
      stage: stage(limit.id, run.id, { costUsd: 1.5, startedAt: 0, endedAt: 90_000 }),
      checkpoint: null,
      findings: [],
      events: [],
      task: {},
      now: old,
    });
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const lineOf = (out: string, id: string) => out.split("\n").find((l) => l.includes(` ${id} `)) ?? "";
const ids = (json: string) => (JSON.parse(json) as { id: string }[]).map((t) => t.id);

describe("fixpoint status", () => {
  it("says on each line why a task needs you, and ends with the totals", () => {
    const r = cli("status");
    expect(r.code).toBe(0);
    expect(lineOf(r.stdout, "t-2")).toContain("— cycle limit reached: 2 blocking findings left");
    expect(lineOf(r.stdout, "t-3")).toContain("— waiting at sign-off");
    expect(lineOf(r.stdout, "t-4")).toContain("— failed: claude exited 137");
    expect(lineOf(r.stdout, "t-5")).toContain("— budget reached");
    expect(lineOf(r.stdout, "t-1")).not.toContain("—");
    expect(r.stdout).toContain(
      "6 tasks: 1 queued · 1 completed · 3 needs_human · 1 failed · $1.50 · 1m30s of agent time\n",
    );
  });

  it("--needs-me lists only the tasks waiting for a person, in text and JSON", () => {
    const r = cli("status", "--needs-me");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("3 tasks: 3 needs_human");
    for (const id of ["t-1", "t-4", "t-6"]) expect(lineOf(r.stdout, id)).toBe("");
    expect(ids(cli("status", "--needs-me", "--json").stdout)).toEqual(["t-2", "t-3", "t-5"]);
  });

  it("--status takes a comma list or repeats, and filters JSON too", () => {
    expect(ids(cli("status", "--status", "failed,queued", "--json").stdout)).toEqual(["t-4", "t-6"]);
    expect(ids(cli("status", "--status", "failed", "--status", "completed", "--json").stdout)).toEqual([
      "t-1",
      "t-4",
    ]);
    expect(ids(cli("status", "--status", "needs-human", "--json").stdout)).toEqual(["t-2", "t-3", "t-5"]);
  });

  it("an unknown status exits 2 with a suggestion", () => {
    const r = cli("status", "--status", "faild");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown status `faild` (did you mean `failed`?)");
    expect(r.stdout).toBe("");
  });

  it("--since takes a duration or a date and filters both outputs; a bad value exits 2", () => {
    expect(ids(cli("status", "--since", "24h", "--json").stdout)).toEqual(["t-5", "t-6"]);
    expect(ids(cli("status", "--since", "4d", "--json").stdout)).toHaveLength(6);
    const day = new Date(Date.now() - 24 * HOUR).toISOString().slice(0, 10);
    expect(ids(cli("status", "--since", day, "--json").stdout)).toEqual(["t-5", "t-6"]);
    const text = cli("status", "--since", "24h", "--needs-me");
    expect(text.stdout).toContain("1 task: 1 needs_human");
    expect(lineOf(text.stdout, "t-5")).toContain("budget reached");
    const bad = cli("status", "--since", "yesterday");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("since: `yesterday` is not a duration");
  });

  it("says when no task matches the filters", () => {
    const r = cli("status", "--status", "running");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("No tasks match these filters.\n");
    expect(cli("status", "--status", "running", "--json").stdout).toBe("[]\n");
  });
});
