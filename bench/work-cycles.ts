import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_GIT_ENV, type BenchResult, median, repoRoot } from "./util.js";

/**
 * Issue 10's first measurement as a user meets it: fixpoint's own time per fix cycle through
 * `fixpoint work` (the bundled CLI, a SQLite file, real git, a worktree, the built-in
 * implement-review workflow) with thousands of open findings. Before issue 10: 1.6 s at 300 open
 * findings, 42 s at 2,000.
 *
 * The agents are scripted (the `scripted` backend: a module answering in fixpoint's own process),
 * so nothing but fixpoint runs. Cycle 0's code reviewer raises `n` findings over 50 files; in each
 * fix cycle the fixer fixes the first finding its prompt shows (an edit, so a commit) and defers
 * the others (one a cycle, so blocking findings are left for every cycle at any size), and the reviewers resolve what was fixed and keep the rest open. Every agent call
 * adds its own time to a log; what is left of a cycle's wall time is fixpoint's.
 */
export const WORK_CYCLE_SIZES = [300, 2_000, 5_000];
const FIX_CYCLES = 6;
const FILES = 50;
/** Lines per file: every finding has a place of its own up to FILES × LINES (100,000) findings. */
const LINES = 2_000;

const CLI = join(repoRoot(), "dist", "bin", "fixpoint.js");
const RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 200 } as const;

/** Each agent module wraps its answer in `timed`, which appends `<cycle> <ms>` to agents/time.log. */
const TIMED = `import { appendFileSync } from "node:fs";
export function timed(req, answer) {
  const start = performance.now();
  const reply = answer();
  appendFileSync(new URL("./time.log", import.meta.url), \`\${req.cycle} \${performance.now() - start}\\n\`);
  return reply;
}
export const fenced = (lead, value) => lead + "\\n\\n\`\`\`json\\n" + JSON.stringify(value) + "\\n\`\`\`\\n";
`;

const IMPLEMENTER = `import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { timed } from "./timed.mjs";
export default (req) => timed(req, () => {
  writeFileSync(join(req.cwd, "src/feature.js"), "export const feature = 1;\\n");
  return { text: "Implemented the feature in src/feature.js." };
});
`;

const reviewer = (n: number) => `import { fenced, timed } from "./timed.mjs";
const KINDS = ["Null check missing", "Race on shared state", "Handle leak", "Integer overflow", "Wrong error code", "Misleading name", "Untested branch"];
export default (req) => timed(req, () => {
  const prior = [...req.prompt.matchAll(/^(F-\\d+) \\| P\\d \\| ([a-z]+) \\|/gm)].map((m) =>
    m[2] === "fixed" ? { id: m[1], status: "resolved", note: "verified in the code" } : { id: m[1], status: "still_open", note: "still there" });
  const findings = [];
  if (req.cycle === 0 && req.stageId === "review_code") {
    for (let i = 0; i < ${n}; i++) {
      const file = i % ${FILES};
      const line = 1 + (Math.floor(i / ${FILES}) % ${LINES});
      findings.push({ severity: i % 3 === 0 ? "P1" : "P2", category: "correctness",
        title: KINDS[i % KINDS.length] + " at line " + line + " of f" + file,
        body: "The value at line " + line + " is not checked in case " + i + ".",
        file: "src/f" + file + ".js", line_start: line, line_end: line });
    }
  }
  return { text: fenced("Review done.", { verdict: "CHANGES_REQUESTED", summary: findings.length + " found", findings, prior }) };
});
`;

const FIXER = `import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { fenced, timed } from "./timed.mjs";
export default (req, ctx) => timed(req, () => {
  const ids = [...new Set([...req.prompt.matchAll(/^#{3,4} (F-\\d+) (?:·|\\[)/gm)].map((m) => m[1]))];
  appendFileSync(join(req.cwd, "src/f0.js"), "// fix " + ctx.invocation + "\\n");
  const findings = ids.map((id, k) => k === 0
    ? { id, status: "fixed", justification: "changed src/f0.js for " + id }
    : { id, status: "deferred", justification: "left " + id + " for a later change: it needs a design decision" });
  return { text: fenced("Done.", { summary: "fixed one", findings }) };
});
`;

function project(root: string, n: number): string {
  const repo = join(root, "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  mkdirSync(join(repo, "agents"));
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, env: { ...process.env, ...BENCH_GIT_ENV } });
  git("init", "-q", "-b", "main");
  const lines = Array.from({ length: LINES }, (_, i) => `export const v${i} = ${i};`).join("\n");
  for (let f = 0; f < FILES; f++) writeFileSync(join(repo, "src", `f${f}.js`), `${lines}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  writeFileSync(join(repo, "agents", "timed.mjs"), TIMED);
  writeFileSync(join(repo, "agents", "impl.mjs"), IMPLEMENTER);
  writeFileSync(join(repo, "agents", "review.mjs"), reviewer(n));
  writeFileSync(join(repo, "agents", "fix.mjs"), FIXER);
  writeFileSync(
    join(repo, "fixpoint.kdl"),
    [
      'agent "implementer" backend="scripted" script="./agents/impl.mjs"',
      'agent "reviewer" backend="scripted" script="./agents/review.mjs"',
      'agent "fixer" backend="scripted" script="./agents/fix.mjs"',
      `defaults { max-cycles ${FIX_CYCLES}; }`,
      "",
    ].join("\n"),
  );
  // The agents and the config are the harness's, not the task's: kept out of the branch.
  writeFileSync(join(repo, ".git", "info", "exclude"), "agents/\nfixpoint.kdl\n.fixpoint/\n");
  return repo;
}

interface StageJson {
  cycle: number;
  started_at: string;
  duration_ms: number;
}

interface CycleRun {
  /** fixpoint's own ms per fix cycle (wall minus the agents' time), cycles 1 … FIX_CYCLES. */
  own: number[];
  findings: number;
  open: number;
}

function workOnce(n: number): CycleRun {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-work-"));
  try {
    const repo = project(root, n);
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: join(root, "home"),
      FIXPOINT_HOME: join(root, "fh"),
      ...BENCH_GIT_ENV,
    };
    const cli = (...args: string[]): string => {
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd: repo, env, maxBuffer: 1 << 30 });
      if (r.status !== 0 && args[0] !== "work") throw new Error(`fixpoint ${args.join(" ")}: ${r.stderr}`);
      return r.stdout.toString("utf8");
    };
    cli("add", "Add the feature");
    cli("work");
    const shown = JSON.parse(cli("show", "t-1", "--json")) as {
      stages: StageJson[];
      findings: { status: string }[];
    };
    // A cycle ends when its last stage does; cycle c's span runs from the end of cycle c - 1.
    const ends = new Map<number, number>();
    for (const s of shown.stages) {
      const end = Date.parse(s.started_at) + s.duration_ms;
      ends.set(s.cycle, Math.max(ends.get(s.cycle) ?? 0, end));
    }
    const agentMs = new Map<number, number>();
    for (const line of readFileSync(join(repo, "agents", "time.log"), "utf8")
      .trim()
      .split("\n")) {
      const [cycle, ms] = line.split(" ").map(Number);
      agentMs.set(cycle as number, (agentMs.get(cycle as number) ?? 0) + (ms as number));
    }
    const own: number[] = [];
    for (let c = 1; c <= FIX_CYCLES; c++) {
      const [from, to] = [ends.get(c - 1), ends.get(c)];
      if (from === undefined || to === undefined)
        throw new Error(`work at ${n} findings: cycle ${c} did not run`);
      own.push(to - from - (agentMs.get(c) ?? 0));
    }
    const open = shown.findings.filter((f) => f.status === "open" || f.status === "deferred").length;
    return { own, findings: shown.findings.length, open };
  } finally {
    rmSync(root, RM);
  }
}

/** The median fix cycle's own time at each size, and the time per finding. */
export async function benchWorkCycles(sizes: number[] = WORK_CYCLE_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  let prev: { findings: number; ms: number } | undefined;
  for (const n of sizes) {
    const run = workOnce(n);
    const m = median(run.own);
    // Per finding added since the previous size: the cycle's fixed cost (a commit, five stages)
    // cancels out, so the figure stays about the same from size to size when growth is linear.
    const added =
      prev === undefined || run.findings <= prev.findings
        ? ""
        : `; ${(((m - prev.ms) * 1000) / (run.findings - prev.findings)).toFixed(1)} µs per finding added since ${prev.findings.toLocaleString("en")}`;
    prev = { findings: run.findings, ms: m };
    out.push({
      name: `fixpoint's own time per fix cycle through \`fixpoint work\`, ${run.findings.toLocaleString("en")} findings in the registry, median`,
      value: m,
      unit: "ms",
      budget: "linear",
      ok: true,
      detail: `${FIX_CYCLES} fix cycles (fix, gates, 3 reviews), wall time minus the scripted agents' own; ${run.open.toLocaleString("en")} still open at the end; per cycle: ${run.own.map((x) => x.toFixed(0)).join(", ")} ms${added}. Before issue 10: 1.6 s at 300 open findings, 42 s at 2,000`,
    });
  }
  return out;
}
