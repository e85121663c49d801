import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedBackend, type ScriptReply } from "../src/agents/scripted.js";
import { loadConfig } from "../src/config/load.js";
import { createDemoRepo } from "../src/demo/project.js";
import type { AgentRequest, AgentResolver } from "../src/domain/agent.js";
import type { EngineDeps } from "../src/engine/deps.js";
import { createPromptLibrary } from "../src/engine/prompts.js";
import { runWorker } from "../src/engine/worker.js";
import { createGit } from "../src/git/git-cli.js";
import { fileExistsInside } from "../src/git/safe-path.js";
import { openStore } from "../src/store/open.js";
import { systemClock } from "../src/util/clock.js";
import { createProcessRunner } from "../src/util/process-runner.js";
import { loadWorkflow } from "../src/workflow/loader.js";
import { parseWorkflow } from "../src/workflow/parse.js";
import type { Workflow } from "../src/workflow/types.js";
import { type BenchResult, repoRoot } from "./util.js";

/** The checkout (compiled in dist-bench/bench or run from source in bench/). */
const ROOT = repoRoot();

/** The reference scenario (SPEC §14): 8 seeded defects spread over 3 reviewers. */
const DEFECTS: { key: string; owner: string; title: string }[] = [
  { key: "D1", owner: "review_code", title: "off-by-one in the pagination loop" },
  { key: "D2", owner: "review_code", title: "error from the cache write is ignored" },
  { key: "D3", owner: "review_code", title: "retry counter never resets after success" },
  { key: "D4", owner: "review_security", title: "user input reaches the shell command unescaped" },
  { key: "D5", owner: "review_security", title: "session token is written to the debug log" },
  { key: "D6", owner: "review_security", title: "path parameter allows directory traversal" },
  { key: "D7", owner: "review_tests", title: "no test covers the empty-result branch" },
  { key: "D8", owner: "review_tests", title: "timeout path is untested" },
];

interface Trace {
  invocations: Record<string, number>;
  /** Prompt bytes by cycle, all agents. */
  bytesByCycle: Map<number, number>;
  fixPromptBytes: Map<number, number>;
}

const defectsFile = (cwd: string) => join(cwd, "defects.json");
const present = (cwd: string): string[] => JSON.parse(readFileSync(defectsFile(cwd), "utf8")) as string[];

function reply(json: unknown): ScriptReply {
  return {
    text: `\`\`\`json\n${JSON.stringify(json)}\n\`\`\``,
    usage: { input: 1000, output: 200 },
    costUsd: 0.001,
  };
}

/** The ids fixpoint listed in a prompt section, with the defect each one is about (by title). */
function listed(section: string): { id: string; defect: (typeof DEFECTS)[number] | undefined }[] {
  const out: { id: string; defect: (typeof DEFECTS)[number] | undefined }[] = [];
  for (const m of section.matchAll(/\b(F-\d+)\b/g)) {
    const id = m[1] as string;
    if (out.some((x) => x.id === id)) continue;
    const window = section.slice(m.index ?? 0, (m.index ?? 0) + 400);
    out.push({ id, defect: DEFECTS.find((d) => window.includes(d.title)) });
  }
  return out;
}

function handlers(trace: Trace, fixer: "fix" | "defer") {
  const note = (req: AgentRequest) => {
    trace.invocations[req.agent] = (trace.invocations[req.agent] ?? 0) + 1;
    trace.bytesByCycle.set(
      req.cycle,
      (trace.bytesByCycle.get(req.cycle) ?? 0) + Buffer.byteLength(req.prompt),
    );
    if (req.purpose === "fix") trace.fixPromptBytes.set(req.cycle, Buffer.byteLength(req.prompt));
  };
  return {
    implementer: (req: AgentRequest): ScriptReply => {
      note(req);
      writeFileSync(defectsFile(req.cwd), JSON.stringify(DEFECTS.map((d) => d.key)));
      mkdirSync(join(req.cwd, "src"), { recursive: true });
      writeFileSync(
        join(req.cwd, "src/app.js"),
        Array.from({ length: 200 }, (_, i) => `// line ${i + 1}`).join("\n"),
      );
      return { text: "implemented", usage: { input: 1000, output: 500 }, costUsd: 0.002 };
    },
    reviewer: (req: AgentRequest): ScriptReply => {
      note(req);
      const now = present(req.cwd);
      const findings = DEFECTS.filter((d) => d.owner === req.stageId && now.includes(d.key)).map((d, i) => ({
        severity: "P1",
        category: "correctness",
        title: d.title,
        body: `${d.title}: seen while reading the change.`,
        file: "src/app.js",
        line_start: 20 * Number(d.key.slice(1)) + i,
        line_end: 20 * Number(d.key.slice(1)) + i + 2,
      }));
      const prior = listed((req.prompt.split("# Earlier findings")[1] ?? "").split("# Your focus")[0] ?? "")
        .filter((x) => x.defect)
        .map((x) => ({ id: x.id, status: now.includes(x.defect?.key ?? "") ? "still_open" : "resolved" }));
      const open = findings.length > 0 || prior.some((p) => p.status === "still_open");
      return reply({
        verdict: open ? "CHANGES_REQUESTED" : "APPROVED",
        summary: "reviewed",
        findings,
        prior,
      });
    },
    fixer: (req: AgentRequest): ScriptReply => {
      note(req);
      const items = listed(req.prompt.split("# What the reviewers and gates found")[1] ?? "");
      if (fixer === "defer") {
        const justification =
          "Waiting for the schema migration in PR 42 to land before the column type can change.";
        return reply({
          summary: "deferred",
          findings: items.map((x) => ({ id: x.id, status: "deferred", justification })),
        });
      }
      const fixed = new Set(items.map((x) => x.defect?.key));
      writeFileSync(defectsFile(req.cwd), JSON.stringify(present(req.cwd).filter((k) => !fixed.has(k))));
      return reply({
        summary: "fixed",
        findings: items.map((x) => ({
          id: x.id,
          status: "fixed",
          justification: `fixed ${x.defect?.title}`,
        })),
      });
    },
  };
}

async function runScenario(workflow: Workflow, opts: { maxCycles: number; fixer: "fix" | "defer" }) {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-conv-"));
  const repo = join(root, "repo");
  mkdirSync(repo);
  createDemoRepo(repo);
  const env = { HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh"), PATH: process.env.PATH };
  const config = await loadConfig({ projectRoot: repo, env, cwd: repo });
  const store = await openStore("sqlite", repo);
  const trace: Trace = { invocations: {}, bytesByCycle: new Map(), fixPromptBytes: new Map() };
  const h = handlers(trace, opts.fixer);
  const backends = {
    implementer: createScriptedBackend(h.implementer),
    reviewer: createScriptedBackend(h.reviewer),
    fixer: createScriptedBackend(h.fixer),
  };
  const agents: AgentResolver = {
    resolve: (name) => ({
      name,
      backend: backends[name as keyof typeof backends] ?? backends.implementer,
      timeoutMs: 60_000,
      env: {},
      extraArgs: [],
    }),
  };
  const deps: EngineDeps = {
    store,
    git: createGit(),
    agents,
    config,
    clock: systemClock,
    runner: createProcessRunner(),
    prompts: createPromptLibrary(repo, join(ROOT, "prompts")),
    fileExists: fileExistsInside,
    loadWorkflow: async () => workflow,
    projectRoot: repo,
    reviewsDir: join(repo, ".fixpoint/reviews"),
    transcriptsDir: join(repo, ".fixpoint/transcripts"),
    listener: () => undefined,
    env,
  };
  await store.createTask(
    {
      type: "implement",
      title: "reference scenario",
      prompt: "build it",
      workflow: workflow.name,
      repo,
      baseBranch: "main",
      maxCycles: opts.maxCycles,
    },
    Date.now(),
  );
  await runWorker(deps, { concurrency: 1, once: true, watch: false, signal: new AbortController().signal });
  const task = (await store.listTasks())[0];
  await store.close();
  return { task, trace };
}

function perCycle(m: Map<number, number>): string {
  return [...m.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([c, b]) => `c${c}: ${(b / 1024).toFixed(1)} KiB`)
    .join(", ");
}

/** SPEC §14: approved after 1 fix cycle; the short-circuit workflow needs ≥ 3; prompt growth ≤ 1.2×. */
export async function benchConvergence(): Promise<BenchResult[]> {
  const builtin = await loadWorkflow("implement-review", ROOT, { builtinDir: join(ROOT, "workflows") });
  const shortCircuit = parseWorkflow(
    readFileSync(join(ROOT, "bench/workflows/short-circuit.kdl"), "utf8"),
    "short-circuit.kdl",
  );
  const all = await runScenario(builtin, { maxCycles: 5, fixer: "fix" });
  const sc = await runScenario(shortCircuit, { maxCycles: 5, fixer: "fix" });
  // A fixer that keeps deferring the same findings (with a real reason) for 10 cycles.
  const stubbornText = readFileSync(join(ROOT, "workflows/implement-review.kdl"), "utf8")
    .replace('workflow "implement-review"', 'workflow "no-stall"')
    .replace(/\s*route to="stalled".*\n/, "\n")
    .replace(/\s*stage "stalled" kind="exit"\n/, "\n");
  const stubborn = await runScenario(parseWorkflow(stubbornText, "no-stall.kdl"), {
    maxCycles: 10,
    fixer: "defer",
  });
  const c2 = stubborn.trace.fixPromptBytes.get(2) ?? 0;
  const c10 = stubborn.trace.fixPromptBytes.get(10) ?? 0;
  const ratio = c2 > 0 ? c10 / c2 : Number.POSITIVE_INFINITY;
  const inv = (t: Trace) =>
    Object.entries(t.invocations)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
  return [
    {
      name: "reference scenario (3 reviewers, 8 defects), implement-review: fix cycles to approval",
      value: all.task?.cycle ?? -1,
      unit: "cycles",
      budget: "approved after 1",
      ok: all.task?.finalVerdict === "APPROVED" && all.task.cycle === 1,
      detail: `${all.task?.finalVerdict}; invocations: ${inv(all.trace)}; prompt bytes per cycle: ${perCycle(all.trace.bytesByCycle)}`,
    },
    {
      name: "same scenario, short-circuit workflow (seed 000's before): fix cycles to approval",
      value: sc.task?.cycle ?? -1,
      unit: "cycles",
      budget: "≥ 3",
      ok: sc.task?.finalVerdict === "APPROVED" && (sc.task?.cycle ?? 0) >= 3,
      detail: `${sc.task?.finalVerdict}; invocations: ${inv(sc.trace)}; prompt bytes per cycle: ${perCycle(sc.trace.bytesByCycle)}`,
    },
    {
      name: "fix prompt at cycle 10 vs cycle 2, same open findings",
      value: ratio,
      unit: "×",
      budget: "≤ 1.2×",
      ok: ratio <= 1.2,
      detail: `cycle 2: ${c2} bytes, cycle 10: ${c10} bytes (8 findings deferred every cycle; ${stubborn.task?.finalVerdict} after ${stubborn.task?.cycle} cycles)`,
    },
  ];
}
