import type { BenchResult } from "./util.js";

export function fmt(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
}

/** A row only reported (budget "report") has no target: it is neither met nor not. */
export function reportOnly(r: BenchResult): boolean {
  return r.budget === "report";
}

/** A row's verdict in the table. */
function status(r: BenchResult): string {
  return reportOnly(r) ? "—" : r.ok ? "met" : "NOT met";
}

/** docs/benchmarks.md: every result as one table row, then how to read them. */
export function renderReport(
  results: BenchResult[],
  meta: { date: string; machine: string; command?: string },
): string {
  const rows = results.map(
    (r) => `| ${r.name} | **${fmt(r.value)} ${r.unit}** | ${r.budget} | ${status(r)} | ${r.detail} |`,
  );
  return `# Benchmarks

Measured by \`${meta.command ?? "npm run bench"}\` (sources in \`bench/\`) on ${meta.date}.
Machine: ${meta.machine}.
One benchmark: \`npm run bench -- chain\` (keys: engine, chain, cli-chain, resume, workflow, registry, work,
spawn, prompt, status, claims, clean, worktree-add, pg-claims, pg-status, convergence, prompt-cache, dedup, hostile, breadth). Other sizes: \`FIXPOINT_BENCH_CHAIN=10,50\`, \`FIXPOINT_BENCH_CLI_CHAIN=20,300\`, \`FIXPOINT_BENCH_RESUME=10,5000\` (one size alone: against 10 stages),
\`FIXPOINT_BENCH_WORKFLOW=500,50000\`, \`FIXPOINT_BENCH_FINDINGS=200,20000\`,
\`FIXPOINT_BENCH_WORK_FINDINGS=1000,10000\`, \`FIXPOINT_BENCH_SPAWN_MIB=0,1000\`, \`FIXPOINT_BENCH_TASKS=5000\`, \`FIXPOINT_BENCH_PG_TASKS=1000,10000\`, \`FIXPOINT_BENCH_CLEAN=300,3000\`, \`FIXPOINT_BENCH_WORKTREES=100,10000\`, \`FIXPOINT_BENCH_RESOLVED=20000\`, \`FIXPOINT_BENCH_DEDUP_FILELESS=2000,50000\`, \`FIXPOINT_BENCH_DEDUP_ONE_FILE=5000,20000\`, \`FIXPOINT_BENCH_HOSTILE=100000,1000000\`, \`FIXPOINT_BENCH_BREADTH=5\` (each case at 5× its base size)
(the first line above names the sizes used).

| what | measured | target | | how |
|---|---|---|---|---|
${rows.join("\n")}

Notes:
- Side by side (issue 10): the chain benchmark runs its floor and fixpoint alternately in the same
  process (5 rounds per size up to 100 stages, 3 up to 1,000 and for longer no-op chains, 1 for
  longer chains that edit a file), after one untimed short
  chain of each (module loading and first JIT compiles are start-up, not per-stage cost). The
  floor is the least any tool must do per stage: one SQLite commit of a row naming the stage and
  the next one, on a connection opened by the store's own \`openDatabase\` (WAL,
  synchronous=NORMAL, foreign keys, busy timeout), plus one \`git commit -a\` when the stage
  changed a file, started as fixpoint starts its git (posix_spawn, where the native starter is
  built). fixpoint runs the worker \`fixpoint work\` runs (engine, SQLite store, real git,
  worktree per task) with a no-op agent (an AgentBackend that answers at once and writes no
  transcript) that does nothing or edits one file.
- How per-stage time is computed: each stage is timed from the end of the stage before it to its
  own end (fixpoint: the \`stage.finished\` events, emitted once the stage's commit is durable);
  the first stage, which carries the claim and the worktree's creation, is not a sample. "per-stage
  time" rows compare the medians. "marginal cost" rows divide the difference of the whole chain's
  wall time (fixpoint: the whole \`runWorker\` call, start-up included) between the smallest and the
  largest size by the difference in stages: start-up cancels out, pauses (GC, WAL checkpoints,
  a busy machine) count. "end ÷ start" compares a chain's last tenth of stages with its first
  tenth, as medians and as means (means count periodic work: counter snapshots, WAL
  checkpoints), and is judged on the larger; the exit stage, which carries the run's end, is not
  in the last tenth, as the first stage is not in the first. The decomposition row runs, in the
  same rounds, the no-op chain once more with the stage's record (\`commitStage\`) and its saved
  agent reply (\`setMarker\`) not written: what fixpoint costs per stage besides those two writes.
- The CLI chain benchmark runs item 4 as a user does: \`fixpoint add\` and \`fixpoint work\` (the
  bundled CLI, SQLite, real git, a worktree) of a chain whose every stage runs a command agent,
  \`true\` or \`sh -c 'echo x >> notes.txt'\`. Per-stage time comes from when each stage ended (the
  stored stages for fixpoint, the loop's own clock for the floor), the first stage excluded: a
  chain of 40 stages or more is cut into blocks of 20 and the median block's mean is taken (a
  burst of another tenant's work on the machine slows a few blocks, not the median); a shorter
  chain gives its mean. Its floor is a loop in a Node process of its own
  that runs the same command per stage, one \`git commit -qam\` after an edit, and one SQLite
  commit (WAL, synchronous=NORMAL). The floor starts its children as fixpoint does: with
  posix_spawn through fixpoint's native starter where it is built (the row's ratio), and, in the
  same rounds, with Node's spawn, as a plain Node loop would (in the row's details). 5
  alternating rounds of no-op stages and 3 of editing ones (9 of either for a chain shorter than
  100 stages, whose rounds take a second or two), each fixpoint run next to its floor;
  the ratio is the median of the rounds' ratios (each is in the row), so a slow minute of the
  machine weighs on both sides of a round. Chains of 10, 100, 1,000 and 3,000 stages of \`true\`;
  the editing chain up to 1,000 stages (a \`git commit\` each; \`FIXPOINT_BENCH_CLI_CHAIN=3000\` runs
  it longer).
- Registry work is CPU time of one fix cycle (load, three reviewers' statuses and new findings
  against the whole registry, the bounded fix section, the fix report, the drain), so other
  processes on the machine do not count against it.
- The work benchmark runs what a user runs: \`fixpoint add\` and \`fixpoint work\` (the bundled CLI,
  a SQLite file, real git, a worktree, the built-in implement-review workflow, 6 fix cycles) with
  scripted agents in fixpoint's own process. Cycle 0's code reviewer raises the findings over 50
  files; each fix cycle the fixer fixes one and defers the rest, and the reviewers resolve what was
  fixed. A fix cycle's wall time (from the end of the cycle before to the end of its last review,
  as the stored stages say) minus the time the agents' own code took is fixpoint's.
- The spawn benchmark starts \`true\` (input on stdin, both outputs read) from a process that holds
  more and more touched memory: Node's spawn forks that process, and a fork copies its page
  tables; fixpoint's spawner (src/util/spawner.ts) starts it with posix_spawn (native/spawn.cc),
  which shares them until the child execs, or, without the native starter, has its small helper
  process fork instead. The three alternate in the same process, 3 rounds per size.
- The status benchmark times the whole \`fixpoint status --json\` process, Node's own start-up
  included, alternating with a bare \`node -e 0\` and with a bare Node program that writes the
  same number of bytes to the pipe in the same page size (the least any Node CLI printing that
  output pays on the machine). The output is read through a pipe by the benchmark's own Node
  process, as a script calling \`fixpoint\` reads it; that reader's work (about 0.3 s of CPU for
  39 MiB, on a 2-core machine) shares the machine with fixpoint's. The same command is also timed
  with its output going to a file (\`> tasks.json\`), where no reader competes with it.
- The engine benchmark runs the real engine on a git that does nothing: fixpoint's own work per
  stage.
- PostgreSQL claims: 8 worker processes per system on one throwaway PostgreSQL server (or
  FIXPOINT_BENCH_DATABASE_URL), fixpoint and graphile-worker in 3 rounds of alternating order, then
  pg-boss, in the same run, each claiming and completing the same number of jobs; see bench/pg-claims.ts.
- \`status --json\` with PostgreSQL (\`pg-status\`): a database filled in one statement on the same
  throwaway server, the whole process alternated with a Node program that prints the same bytes
  with node-postgres in one query; see bench/pg-status.ts.
- \`clean\`: \`fixpoint clean --branches\` over finished tasks that each hold a worktree (laid out as
  \`git worktree add\` lays one out) and a branch, one in four with a commit of its own; the whole
  process, once per size; see bench/clean.ts.
- \`worktree-add\`: a new task's worktree (fixpoint's \`Git.ensureWorktree\`) in a repository keeping
  that many others laid out as git lays them, alternating with \`git worktree add -b\`; the median
  of 5 each after one untimed round; see bench/worktree-add.ts.
- Agent CLIs end to end (real Claude Code, Codex and pi against the fake model server): see
  [e2e-timings.md](e2e-timings.md).
`;
}
