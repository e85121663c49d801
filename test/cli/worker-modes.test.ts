import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import {
  exited,
  isolatedEnv,
  projectWithImplementer,
  runCli,
  startCli,
  tempDir,
  waitFor,
} from "../helpers/cli.js";

// An implementer that takes `ms` and notes when it started and ended, per task.
const SLOW_AGENT = `import { appendFileSync, writeFileSync } from "node:fs";
export default async (req) => {
  const log = process.env.FIXPOINT_TEST_SPANS;
  appendFileSync(log, JSON.stringify({ task: req.taskId, at: "start", t: Date.now() }) + "\\n");
  await new Promise((r) => setTimeout(r, Number(process.env.FIXPOINT_TEST_AGENT_MS ?? 0)));
  writeFileSync(req.cwd + "/done.txt", req.taskId);
  appendFileSync(log, JSON.stringify({ task: req.taskId, at: "end", t: Date.now() }) + "\\n");
  return { text: "ok" };
};
`;

describe("work modes", () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let spans: string;
  const cli = (...args: string[]) => runCli(args, { cwd: repo, env });

  beforeEach(() => {
    const root = tempDir();
    repo = join(root, "repo");
    spans = join(root, "spans.jsonl");
    writeFileSync(spans, "");
    env = isolatedEnv(root, { FIXPOINT_TEST_SPANS: spans, FIXPOINT_TEST_AGENT_MS: "800" });
    createDemoRepo(repo);
    expect(cli("init").code).toBe(0);
    writeFileSync(join(repo, "slow.mjs"), SLOW_AGENT);
    writeFileSync(join(repo, "fixpoint.kdl"), 'agent "implementer" backend="scripted" script="./slow.mjs"\n');
  });

  const readSpans = () =>
    readFileSync(spans, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { task: string; at: string; t: number });

  it("--concurrency 2 runs two tasks at the same time", () => {
    cli("add", "first", "--no-review");
    cli("add", "second", "--no-review");
    expect(cli("work", "--concurrency", "2").code).toBe(0);
    const s = readSpans();
    const start = (task: string) => s.find((x) => x.task === task && x.at === "start")?.t ?? Number.NaN;
    const end = (task: string) => s.find((x) => x.task === task && x.at === "end")?.t ?? Number.NaN;
    // Each started before the other ended: they overlapped.
    expect(start("t-2")).toBeLessThan(end("t-1"));
    expect(start("t-1")).toBeLessThan(end("t-2"));
  });

  it("--watch keeps polling: a task queued later is run; Ctrl-C drains the idle worker (exit 0)", async () => {
    const worker = startCli(["work", "--watch"], { cwd: repo, env });
    await new Promise((r) => setTimeout(r, 500));
    expect(cli("add", "queued while the worker waits", "--no-review").code).toBe(0);
    await waitFor(() => readSpans().some((x) => x.at === "end"), 20_000, "the task to run");
    await waitFor(() => worker.output().includes("APPROVED"), 10_000, "the task to finish");
    worker.kill("SIGINT");
    expect(await exited(worker)).toBe(0);
    const tasks = JSON.parse(cli("status", "--json").stdout) as { status: string }[];
    expect(tasks.map((t) => t.status)).toEqual(["completed"]);
  });

  it("logs -f follows a task until it finishes", async () => {
    cli("add", "watch my log", "--no-review");
    const follow = startCli(["logs", "t-1", "-f"], { cwd: repo, env });
    await new Promise((r) => setTimeout(r, 300));
    expect(cli("work").code).toBe(0);
    expect(await exited(follow)).toBe(0);
    const out = follow.output();
    expect(out).toContain("task.queued");
    expect(out).toContain("stage.finished");
    expect(out).toContain("task.finished");
  });
});

describe("fixpoint cancel", () => {
  it("stops a running task's stage within seconds; the task stays cancelled and its work is committed", async () => {
    const { repo, env, cli } = projectWithImplementer(
      "export default async (req) => { (await import('node:fs')).writeFileSync(req.cwd + '/partial.txt', 'half'); await new Promise((r) => setTimeout(r, 60000)); return { text: 'late' }; };\n",
      { timeout: "5m" },
    );
    cli("add", "a long job", "--no-review");
    const worker = startCli(["work"], { cwd: repo, env });
    await waitFor(
      () => (JSON.parse(cli("status", "--json").stdout) as { status: string }[])[0]?.status === "running",
      20_000,
      "the task to start",
    );
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = Date.now();
    expect(cli("cancel", "t-1").code).toBe(0);
    await exited(worker);
    expect(Date.now() - cancelled).toBeLessThan(10_000);
    const t = JSON.parse(cli("show", "t-1", "--json").stdout) as {
      task: { status: string; branch: string };
      runs: { status: string }[];
    };
    expect(t.task.status).toBe("cancelled");
    expect(t.runs.at(-1)?.status).toBe("interrupted");
    const { execFileSync } = await import("node:child_process");
    expect(
      execFileSync("git", ["show", `${t.task.branch}:partial.txt`], { cwd: repo, encoding: "utf8" }),
    ).toBe("half");
  });

  it("a task whose worker was killed shows its run interrupted once cancelled, and after a cancel the worker never saw", async () => {
    const { repo, env, cli } = projectWithImplementer(
      "export default async () => { await new Promise((r) => setTimeout(r, 60000)); return { text: 'late' }; };\n",
      { timeout: "5m" },
    );
    cli("add", "killed then cancelled", "--no-review");
    cli("add", "cancelled then killed", "--no-review");
    type Shown = { task: { status: string }; runs: { status: string; ended_at?: string | null }[] };
    const show = (id: string) => JSON.parse(cli("show", id, "--json").stdout) as Shown;
    const running = (id: string) => () => {
      const s = show(id);
      return s.task.status === "running" && s.runs.length > 0;
    };

    // t-1: the worker dies, its lease runs out, then the task is cancelled.
    const first = startCli(["work", "--lease-ms", "1000"], { cwd: repo, env });
    await waitFor(running("t-1"), 20_000, "t-1 to start");
    first.kill("SIGKILL");
    await exited(first);
    await new Promise((r) => setTimeout(r, 1200));
    expect(cli("cancel", "t-1").code).toBe(0);
    expect(show("t-1").runs.map((r) => r.status)).toEqual(["interrupted"]);

    // t-2: cancelled while its worker is alive, and the worker is killed before it notices.
    const second = startCli(["work", "--lease-ms", "1000"], { cwd: repo, env });
    await waitFor(running("t-2"), 20_000, "t-2 to start");
    expect(cli("cancel", "t-2").code).toBe(0);
    second.kill("SIGKILL");
    await exited(second);
    await new Promise((r) => setTimeout(r, 1200));
    const t2 = show("t-2");
    expect(t2.task.status).toBe("cancelled");
    expect(t2.runs.map((r) => r.status)).toEqual(["interrupted"]);
  });
});
