import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFixpoint } from "../../src/app/fixpoint.js";
import { createDemoRepo } from "../../src/demo/project.js";
import { CLI, git, isolatedEnv, runCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";
import { fuzzRuns } from "./fuzz-inputs.js";

/**
 * The fault suite's worker chaos (issue 14, "A fault suite"): N tasks, concurrent `fixpoint work`
 * processes on one store, SIGKILLs at random moments, agents that crash, hang or print garbage,
 * and now and then a worker whose store hits a full disk (a file-size limit). Afterwards a clean
 * worker drains the queue, and the invariants must hold: every task settled, no finding or
 * commit duplicated, no crash (stack trace), the database intact, no agent left running.
 * The figures go to stdout (and to $FIXPOINT_FAULT_REPORT as JSON) for docs/reliability.md.
 */

const LOG = "AGENT_LOG";

/** One scripted module for all three roles; misbehaves at random (the seed mixed with the worker's pid). */
const AGENTS = `import { appendFileSync, writeFileSync } from "node:fs";
const seed = Number(process.env.CHAOS_SEED);
let n = 0;
function rand(key) {
  let h = seed ^ 0x9e3779b9;
  for (const c of key) h = Math.imul(h ^ c.charCodeAt(0), 2654435761) >>> 0;
  return (h % 1000) / 1000;
}
function misbehave(req) {
  n += 1;
  const r = rand(req.taskId + req.stageId + req.cycle + ":" + n + ":" + process.pid);
  if (r < 0.05) throw new Error("agent crashed");
  if (r < 0.08) return new Promise(() => {});
  if (r < 0.15) return { text: "¯\\\\_(ツ)_/¯ no idea" };
  return null;
}
const fence = (v) => "\`\`\`json\\n" + JSON.stringify(v) + "\\n\`\`\`";
export default async (req) => {
  appendFileSync(process.env.${LOG}, JSON.stringify({ t: req.taskId, s: req.stageId, c: req.cycle, p: req.purpose, pid: process.pid }) + "\\n");
  const bad = misbehave(req);
  if (bad) return bad;
  if (req.purpose === "implement") {
    writeFileSync(req.cwd + "/src/" + req.taskId + ".js", "export const id = " + JSON.stringify(req.taskId) + ";\\n");
    return { text: "implemented" };
  }
  if (req.purpose === "review") {
    const ids = [...req.prompt.matchAll(/^(F-\\d+) \\|/gm)].map((m) => m[1]);
    if (req.cycle === 0 && req.stageId === "review_code") {
      return { text: fence({ verdict: "CHANGES_REQUESTED", summary: "one", prior: [], findings: [{ severity: "P1", category: "correctness", title: "missing export check in " + req.taskId, body: "add a check", file: "src/stats.js", line_start: 1, line_end: 1 }] }) };
    }
    return { text: fence({ verdict: "APPROVED", summary: "ok", findings: [], prior: ids.map((id) => ({ id, status: "resolved" })) }) };
  }
  const ids = [...new Set([...req.prompt.matchAll(/^#{3,4} (F-\\d+) (?:·|\\[)/gm)].map((m) => m[1]))];
  appendFileSync(req.cwd + "/src/stats.js", "// checked\\n");
  return { text: fence({ summary: "done", findings: ids.map((id) => ({ id, status: "fixed", justification: "added the export check to src/stats.js line 1" })) }) };
};
`;

/** How a task stopped by one of the misbehaving agents explains itself. */
const AGENT_FAULT =
  /^needs_human: (?:\w+ failed: (?:scripted agent failed: agent crashed|timed out after 3s)|no progress: .*no usable output from|review .* could not be completed after)/;

interface Figures {
  seed: number;
  tasks: number;
  workerRuns: number;
  kills: number;
  diskFullRuns: number;
  tasksCompleted: number;
  tasksNeedsHuman: number;
  tasksFailed: number;
  agentCalls: number;
  /** Implementations run again although the worker that ran them had moved past them. */
  implementReruns: number;
  /** For each unexcused rerun: the task's agent calls in order (phase@pid). */
  rerunCalls: string[];
  /** Implementations run again because their worker died while it ran them (by design). */
  interruptedImplementations: number;
  duplicateFindings: number;
  duplicateCommits: number;
  crashes: number;
  /** Why each failed or needs_human task stopped. */
  reasons: string[];
  chaosMs: number;
  drainMs: number;
}

type Worker = ChildProcess & { out: () => string; diskFull: boolean };

/** `fixpoint work` as a child; under `ulimit -f` (a full disk for the store) when `fileBlocks` is set. */
function startWorker(repo: string, env: NodeJS.ProcessEnv, concurrency: number, fileBlocks?: number): Worker {
  const args = [CLI, "work", "--concurrency", String(concurrency)];
  const child =
    fileBlocks === undefined
      ? spawn(process.execPath, args, { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] })
      : spawn("sh", ["-c", `ulimit -f ${fileBlocks}; exec "$@"`, "sh", process.execPath, ...args], {
          cwd: repo,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  return Object.assign(child, { out: () => out, diskFull: fileBlocks !== undefined });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function exitOf(c: ChildProcess): Promise<void> {
  return new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));
}

interface Call {
  t: string;
  p: string;
  pid: number;
}

/**
 * Implement calls after a task's first: each is excused only when the worker that made the call
 * before it died (SIGKILLed by the suite, or out of disk) while that call was its last for the
 * task — the interrupted stage reruns by design. Any other repeat is an implementation paid twice.
 */
function implementRepeats(calls: readonly Call[], died: ReadonlySet<number>) {
  let excused = 0;
  let unexcused = 0;
  const why: string[] = [];
  const byTask = new Map<string, Call[]>();
  for (const c of calls) byTask.set(c.t, [...(byTask.get(c.t) ?? []), c]);
  for (const list of byTask.values()) {
    list.forEach((c, i) => {
      if (c.p !== "implement") return;
      const later = list.slice(i + 1);
      if (!later.some((x) => x.p === "implement")) return;
      const movedOn = later.some((x) => x.pid === c.pid);
      if (died.has(c.pid) && !movedOn) excused++;
      else {
        unexcused++;
        why.push(
          `${c.t}: ${list.map((x) => `${x.p}@${x.pid}${died.has(x.pid) ? "(died)" : ""}`).join(" → ")}`,
        );
      }
    });
  }
  return { excused, unexcused, why };
}

async function chaos(seed: number, tasks: number, kills: number): Promise<Figures> {
  const rnd = fc.sample(fc.integer({ min: 0, max: 1_000_000 }), { seed, numRuns: 10_000 });
  let ri = 0;
  const next = (max: number) => (rnd[ri++ % rnd.length] as number) % max;

  const root = makeTempDir("chaos-");
  const repo = join(root, "repo");
  const log = join(root, "agents.log");
  writeFileSync(log, "");
  const env = isolatedEnv(root, { [LOG]: log, CHAOS_SEED: String(seed) });
  createDemoRepo(repo);
  expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
  writeFileSync(join(root, "agents.mjs"), AGENTS);
  const script = JSON.stringify(join(root, "agents.mjs"));
  writeFileSync(
    join(repo, "fixpoint.kdl"),
    `${["implementer", "reviewer", "fixer"]
      .map((a) => `agent "${a}" backend="scripted" script=${script} timeout="3s"`)
      .join("\n")}\ndefaults {\n  max-cycles 2\n}\n`,
  );
  // Queued through the library (the same use case as `fixpoint add`): a CLI start per task would
  // cost more than the chaos itself. One through the CLI, for the CLI's path.
  expect(runCli(["add", "chaos task 0"], { cwd: repo, env }).code).toBe(0);
  const fp = await createFixpoint({ projectRoot: repo, env, init: false });
  try {
    for (let i = 1; i < tasks; i++) await fp.addTask({ prompt: `chaos task ${i}` });
  } finally {
    await fp.close();
  }

  const f: Figures = {
    seed,
    tasks,
    workerRuns: 0,
    kills: 0,
    diskFullRuns: 0,
    tasksCompleted: 0,
    tasksNeedsHuman: 0,
    tasksFailed: 0,
    agentCalls: 0,
    implementReruns: 0,
    rerunCalls: [],
    interruptedImplementations: 0,
    duplicateFindings: 0,
    duplicateCommits: 0,
    crashes: 0,
    reasons: [],
    chaosMs: 0,
    drainMs: 0,
  };
  const outputs: string[] = [];
  /** Workers that died before finishing: SIGKILLed by the suite, or on a full disk. */
  const died = new Set<number>();
  const workers = new Set<Worker>();
  const launch = (diskFull: boolean, concurrency: number) => {
    const w = startWorker(repo, env, concurrency, diskFull ? 40 : undefined);
    f.workerRuns++;
    if (diskFull) f.diskFullRuns++;
    workers.add(w);
    void exitOf(w).then(() => {
      workers.delete(w);
      outputs.push(w.out());
      if (w.diskFull && w.pid !== undefined) died.add(w.pid);
    });
    return w;
  };
  const started = Date.now();
  try {
    while (f.kills < kills) {
      // Three workers at a time; every fourth one runs with its store on a "full disk".
      while (workers.size < 3) launch(f.workerRuns % 4 === 3, 2);
      await sleep(100 + next(900));
      const victims = [...workers];
      const victim = victims[next(victims.length)];
      if (victim && victim.exitCode === null && victim.signalCode === null) {
        victim.kill("SIGKILL");
        if (victim.pid !== undefined) died.add(victim.pid);
        f.kills++;
        await exitOf(victim);
      }
    }
  } finally {
    // The chaos phase ends by killing whoever is still running: those die mid-stage too.
    for (const w of workers) {
      if (w.exitCode === null && w.signalCode === null && w.pid !== undefined) died.add(w.pid);
      w.kill("SIGKILL");
    }
    await Promise.all([...workers].map(exitOf));
  }
  f.chaosMs = Date.now() - started;

  // Drain: two clean workers at a time until nothing is left to run (a hung agent times out in 3 s).
  const drained = Date.now();
  const open = () =>
    (JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as { status: string }[]).some(
      (t) => t.status === "queued" || t.status === "running",
    );
  for (let round = 0; round < 6 && (round === 0 || open()); round++) {
    const pair = [launch(false, 4), launch(false, 4)];
    await Promise.all(pair.map(exitOf));
    for (const w of pair) expect(w.exitCode, w.out()).toBe(0);
  }
  f.drainMs = Date.now() - drained;

  const all = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
    id: string;
    status: string;
    reason: string | null;
  }[];
  f.reasons = all.filter((t) => t.status !== "completed").map((t) => `${t.status}: ${t.reason}`);
  f.tasksCompleted = all.filter((t) => t.status === "completed").length;
  f.tasksNeedsHuman = all.filter((t) => t.status === "needs_human").length;
  f.tasksFailed = all.filter((t) => t.status === "failed").length;
  const calls = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Call);
  f.agentCalls = calls.length;
  const repeats = implementRepeats(calls, died);
  f.implementReruns = repeats.unexcused;
  f.rerunCalls = repeats.why;
  f.interruptedImplementations = repeats.excused;
  const reader = await createFixpoint({ projectRoot: repo, env, init: false });
  try {
    for (const t of all) {
      const titles = (await reader.findings({ task: t.id })).map((x) => x.title);
      f.duplicateFindings += titles.length - new Set(titles).size;
    }
  } finally {
    await reader.close();
  }
  for (const t of all) {
    const branch = `fixpoint/${t.id}`;
    const branches = git(repo, "branch", "--list", `${branch}*`).trim();
    if (branches !== "") {
      const name =
        branches
          .split("\n")[0]
          ?.replace(/^[*+ ]+/, "")
          .trim() ?? branch;
      const subjects = git(repo, "log", "--format=%s", `main..${name}`).trim().split("\n").filter(Boolean);
      const real = subjects.filter((s) => !s.startsWith("WIP"));
      f.duplicateCommits += real.length - new Set(real).size;
    }
  }
  f.crashes = outputs.filter((o) => /\n\s+at .+:\d+:\d+/.test(o) || /Maximum call stack/.test(o)).length;

  // Invariants.
  expect(all).toHaveLength(tasks);
  for (const t of all) expect(["completed", "needs_human", "failed", "cancelled"]).toContain(t.status);
  // Only a misbehaving agent may stop a task short of completed: never a git, store or internal error.
  expect(f.tasksFailed, f.reasons.join("\n")).toBe(0);
  for (const r of f.reasons) expect(r).toMatch(AGENT_FAULT);
  expect(f.implementReruns, f.rerunCalls.join("\n")).toBe(0);
  expect(f.duplicateFindings).toBe(0);
  expect(f.duplicateCommits).toBe(0);
  expect(
    f.crashes,
    outputs.find((o) => /\n\s+at /.test(o)),
  ).toBe(0);
  const db = new Database(join(repo, ".fixpoint", "fixpoint.db"), { readonly: true });
  expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
  expect(db.prepare("SELECT count(*) FROM agent_groups").pluck().get()).toBe(0);
  db.close();
  return f;
}

describe("fault suite: workers killed at random moments, misbehaving agents, a full disk", () => {
  it("every task settles, nothing is duplicated, no finished implementation reruns, nothing crashes", async () => {
    // A fixed seed by default so a failure reproduces; `FIXPOINT_FAULT_SEED=random` explores.
    const given = process.env.FIXPOINT_FAULT_SEED;
    const seed = given === "random" ? Date.now() % 100_000 : Number(given ?? 14);
    const tasks = fuzzRuns(30);
    const figures = await chaos(seed, tasks, Math.max(3, Math.round(tasks / 2)));
    process.stdout.write(`fault suite figures: ${JSON.stringify(figures)}\n`);
    const report = process.env.FIXPOINT_FAULT_REPORT;
    if (report) appendFileSync(report, `${JSON.stringify(figures)}\n`);
  }, 900_000);
});
