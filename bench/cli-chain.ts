import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NATIVE_SPAWNER_PATH, nativeSpawner } from "../src/util/native-spawn.js";
import { BENCH_GIT_ENV, type BenchResult, chainWorkflow, cliProjectRepo, median, repoRoot } from "./util.js";

/** Chain lengths of the CLI chain benchmark: issue 10's 10, 100, 1,000 and 3,000 stages. */
export const CLI_CHAIN_SIZES = [10, 100, 1_000, 3_000];
/**
 * The longest default chain whose stages each edit a file: an edit stage costs a `git commit`
 * (10-30 ms here), so 3,000 of them, three rounds of fixpoint and two floors, would add a quarter
 * of an hour to `npm run bench`. Sizes given in FIXPOINT_BENCH_CLI_CHAIN run both kinds.
 */
export const CLI_EDIT_CHAIN_MAX = 1_000;
const TARGET = 1.5;
/**
 * Rounds per chain: five of no-op stages, whose ratio the machine's noise moves most (a few ms a
 * stage), three of edit stages (a `git commit` each: 25-35 ms a stage, minutes a round).
 */
const ROUNDS = { noop: 5, edit: 3, ignored: 3 } as const;
/**
 * Rounds of a chain shorter than SHORT_CHAIN: a round of one costs a second or two, and its ratio,
 * a mean over fewer than SHORT_CHAIN stages, moves the most with the machine (a 10-stage chain of
 * edits has read 1.27× and 1.71× on the same code, the second from rounds of 1.71, 1.48 and 2.45).
 */
const SHORT_ROUNDS = 9;
const SHORT_CHAIN = 100;
/** Files in the ignored folder of the `ignored` chains: more than one walk of the worktree takes. */
const IGNORED_FILES = 10_000;
/** The longest default chain of the `ignored` kind: it shows the same as the no-op chains beside it. */
const IGNORED_CHAIN_MAX = 100;
const RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 200 } as const;
const CLI = join(repoRoot(), "dist", "bin", "fixpoint.js");

/**
 * The agent of every stage, for fixpoint and the floor alike: nothing, one line appended, or
 * nothing after the first stage made a `node_modules` of IGNORED_FILES files that the project's
 * `.gitignore` names (as an install would).
 */
const AGENTS = {
  noop: ["true"],
  edit: ["sh", "-c", "echo x >> notes.txt"],
  ignored: [
    "sh",
    "-c",
    `test -d node_modules || { mkdir -p node_modules/pkg && cd node_modules/pkg && seq 1 ${IGNORED_FILES} | xargs touch; }`,
  ],
} as const;
type Kind = keyof typeof AGENTS;

/**
 * The floor, in a Node process of its own as fixpoint's worker is: per stage, the agent (a child
 * process, given a prompt on stdin, its output read), one `git commit -qam` when it edits, and
 * one SQLite commit of a row naming the stage and the next (WAL, synchronous=NORMAL, as
 * fixpoint's store). Prints when each stage ended (ms, as a JSON array). Children are started with
 * Node's spawn, or, with BENCH_NATIVE set to fixpoint's native starter, with posix_spawn as
 * fixpoint starts them (src/util/native-spawn.ts). With BENCH_TRANSCRIPTS set to a folder, each
 * stage also creates a file there, owner-only, with a silent agent's transcript sections (prompt,
 * stdout, stderr), as fixpoint wrote each agent turn's transcript before it wrote them at the
 * run's end (one blocking write, the cheapest way).
 */
const FLOOR = `"use strict";
const { spawn } = require("child_process");
const Database = require(process.env.BENCH_SQLITE);
const [n, edit, repo, dbPath] = [Number(process.argv[1]), process.argv[2] === "edit", process.argv[3], process.argv[4]];
const agent = JSON.parse(process.env.BENCH_AGENT);
const db = new Database(dbPath);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec("CREATE TABLE stages (id INTEGER PRIMARY KEY, stage TEXT NOT NULL, next TEXT NOT NULL, at INTEGER NOT NULL)");
const insert = db.prepare("INSERT INTO stages (stage, next, at) VALUES (?, ?, ?)");
const native = process.env.BENCH_NATIVE ? require(process.env.BENCH_NATIVE) : null;
const envList = Object.entries(process.env).map(([k, v]) => k + "=" + v);
const fs = require("fs");
const transcripts = process.env.BENCH_TRANSCRIPTS;
const NEW_FILE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;
const transcript = (i) => {
  const fd = fs.openSync(transcripts + "/" + i + ".log", NEW_FILE, 0o600);
  try { fs.writeSync(fd, "## prompt\\nthe prompt\\n\\n## stdout\\n\\n## stderr\\n"); } finally { fs.closeSync(fd); }
};
const { Socket } = require("net");
const run = (cmd, args) => new Promise((resolve) => {
  if (native) {
    let open = 3;
    const done = () => { if (--open === 0) resolve(); };
    const prompt = Buffer.from("the prompt");
    const [, stdin, stdout, stderr, written] = native.spawn(cmd, [cmd, ...args], envList, repo, false, done, prompt);
    if (stdin >= 0) {
      const i = new Socket({ fd: stdin, readable: false, writable: true });
      i.on("error", () => {});
      i.end(prompt.subarray(written));
    }
    for (const fd of [stdout, stderr]) { const o = new Socket({ fd, readable: true, writable: false }); o.resume(); o.on("close", done); }
    return;
  }
  const c = spawn(cmd, args, { cwd: repo, stdio: ["pipe", "pipe", "pipe"] });
  c.stdin.on("error", () => {});
  c.stdin.end("the prompt");
  c.stdout.resume();
  c.stderr.resume();
  c.on("close", resolve);
});
(async () => {
  const ends = [];
  for (let i = 0; i < n; i++) {
    await run(agent[0], agent.slice(1));
    if (edit) await run("git", ["commit", "-qam", "stage " + i]);
    if (transcripts) transcript(i);
    insert.run("s" + i, "s" + (i + 1), Date.now());
    ends.push(performance.now());
  }
  process.stdout.write(JSON.stringify(ends));
})();
`;

function floorOnce(n: number, kind: Kind, starter: string | null, transcripts = false): number {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-cli-floor-"));
  try {
    const repo = cliProjectRepo(root);
    const dir = join(root, "transcripts");
    if (transcripts) mkdirSync(dir, { mode: 0o700 });
    const r = spawnSync(process.execPath, ["-e", FLOOR, String(n), kind, repo, join(root, "floor.db")], {
      env: {
        ...process.env,
        ...BENCH_GIT_ENV,
        BENCH_SQLITE: join(repoRoot(), "node_modules", "better-sqlite3"),
        BENCH_AGENT: JSON.stringify(AGENTS[kind]),
        ...(starter === null ? {} : { BENCH_NATIVE: starter }),
        ...(transcripts ? { BENCH_TRANSCRIPTS: dir } : {}),
      },
      encoding: "utf8",
    });
    const ends = r.status === 0 ? (JSON.parse(r.stdout) as number[]) : [];
    if (ends.length !== n) throw new Error(`floor of ${n} ${kind} stages: ${r.stderr}`);
    return perStage(ends);
  } finally {
    rmSync(root, RM);
  }
}

interface StageJson {
  stage: string;
  started_at: string;
  duration_ms: number;
}

/** `fixpoint add` + `fixpoint work` of the chain: the mean time per stage between the first and last stage's ends. */
function fixpointOnce(n: number, kind: Kind): number {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-cli-chain-"));
  try {
    const repo = cliProjectRepo(root);
    if (kind === "ignored") {
      writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
      const git = { cwd: repo, env: { ...process.env, ...BENCH_GIT_ENV } };
      spawnSync("git", ["add", ".gitignore"], git);
      spawnSync("git", ["commit", "-q", "-m", "ignore node_modules"], git);
    }
    const [command, ...args] = AGENTS[kind];
    writeFileSync(
      join(repo, "fixpoint.kdl"),
      `agent "implementer" backend="command" command=${JSON.stringify(command)} ${args.map((a) => JSON.stringify(a)).join(" ")} timeout="1m"\n`,
    );
    mkdirSync(join(repo, ".fixpoint", "workflows"), { recursive: true });
    writeFileSync(join(repo, ".fixpoint", "workflows", "chain.kdl"), chainWorkflow(n));
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: join(root, "home"),
      FIXPOINT_HOME: join(root, "fh"),
      ...BENCH_GIT_ENV,
      // FIXPOINT_SPAWN_HELPER=0 compares with every child forked from the worker itself.
      ...(process.env.FIXPOINT_SPAWN_HELPER === undefined
        ? {}
        : { FIXPOINT_SPAWN_HELPER: process.env.FIXPOINT_SPAWN_HELPER }),
    };
    const cli = (...a: string[]): string => {
      const r = spawnSync(process.execPath, [CLI, ...a], { cwd: repo, env, maxBuffer: 1 << 30 });
      if (r.status !== 0) throw new Error(`fixpoint ${a.join(" ")}: ${r.stderr}`);
      return r.stdout.toString("utf8");
    };
    cli("add", "a chain", "--workflow", "chain");
    cli("work");
    const shown = JSON.parse(cli("show", "t-1", "--json")) as { stages: StageJson[] };
    const ends = shown.stages
      .filter((s) => s.stage !== "done")
      .map((s) => Date.parse(s.started_at) + s.duration_ms)
      .sort((a, b) => a - b);
    if (ends.length !== n) throw new Error(`fixpoint ran ${ends.length} of ${n} stages`);
    return perStage(ends);
  } finally {
    rmSync(root, RM);
  }
}

/** Stages per block of `perStage`: 20 stages of ~5 ms, read from millisecond stamps, err by ±1%. */
const BLOCK = 20;

/**
 * The time per stage of a chain from when each stage ended, the first stage excluded (it carries
 * the claim and the worktree; it is the start, not a sample). A chain of at least two blocks is cut
 * into blocks of BLOCK stages and the median block's mean is taken: another tenant's burst on the
 * machine slows a few blocks, not the median, for fixpoint and the floor alike. A shorter chain
 * gives its mean.
 */
export function perStage(ends: number[]): number {
  const intervals = ends.length - 1;
  const first = ends[0];
  const last = ends.at(-1);
  if (intervals < 1 || first === undefined || last === undefined) throw new Error("a chain needs two stages");
  if (intervals < 2 * BLOCK) return (last - first) / intervals;
  const blocks: number[] = [];
  for (let i = 0; i + BLOCK <= intervals; i += BLOCK) {
    blocks.push(((ends[i + BLOCK] as number) - (ends[i] as number)) / BLOCK);
  }
  return median(blocks);
}

/**
 * Issue 10, item 4 as a user runs it: chains of stages through the bundled CLI's `fixpoint work`,
 * each stage's agent a command (`true`, or one that appends a line to a file), against a floor
 * loop in a Node process of its own that runs the same command and does one SQLite commit (and
 * one `git commit` for an edit) per stage; and, up to IGNORED_CHAIN_MAX stages, chains in a
 * project whose ignored `node_modules` holds more files than fixpoint walks, against the same floor
 * (an idle stage there costs no git process either). The floor starts its children as fixpoint does (with
 * posix_spawn, where the native starter is built), and again with Node's spawn, as a plain Node
 * loop would. Alternating rounds, each fixpoint run next to its floor: the ratio is the median of
 * the rounds' ratios, so a slow minute on the machine weighs on both sides of a round.
 */
export async function benchCliChains(
  sizes: number[] = CLI_CHAIN_SIZES,
  roundsGiven?: number,
  editSizes: number[] = sizes,
): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const starter = nativeSpawner() !== null ? NATIVE_SPAWNER_PATH : null;
  const ignoredSizes = sizes.filter((n) => n <= IGNORED_CHAIN_MAX);
  for (const kind of ["noop", "edit", "ignored"] as const) {
    for (const n of kind === "noop" ? sizes : kind === "edit" ? editSizes : ignoredSizes) {
      const fp: number[] = [];
      const floor: number[] = [];
      const nodeFloor: number[] = [];
      // Only beside the no-op stages: an edit stage's `git commit` dwarfs a file's creation.
      const writing: number[] = [];
      const rounds = roundsGiven ?? (n < SHORT_CHAIN ? Math.max(ROUNDS[kind], SHORT_ROUNDS) : ROUNDS[kind]);
      for (let r = 0; r < rounds; r++) {
        fp.push(fixpointOnce(n, kind));
        floor.push(floorOnce(n, kind, starter));
        if (starter !== null && kind !== "ignored") nodeFloor.push(floorOnce(n, kind, null));
        if (kind === "noop") writing.push(floorOnce(n, kind, starter, true));
      }
      const ratio = median(fp.map((f, r) => f / (floor[r] as number)));
      const agent =
        kind === "noop"
          ? "a command agent that does nothing (`true`)"
          : kind === "edit"
            ? "a command agent that appends a line to a file"
            : `a command agent that does nothing (\`sh\`) in a project with an ignored \`node_modules\` of ${IGNORED_FILES.toLocaleString("en")} files`;
      const how = starter === null ? "Node's spawn (no native starter built)" : "posix_spawn, as fixpoint";
      const plain =
        nodeFloor.length === 0
          ? ""
          : `; a floor starting them with Node's spawn: ${median(nodeFloor).toFixed(2)} ms (fixpoint ${(median(fp) / median(nodeFloor)).toFixed(2)}× that)`;
      const withFile =
        writing.length === 0
          ? ""
          : `; the floor also writing each stage's transcript file, as fixpoint did until it wrote them at the run's end: ${median(writing).toFixed(2)} ms (fixpoint ${(median(fp) / median(writing)).toFixed(2)}× that)`;
      out.push({
        name: `per-stage time through \`fixpoint work\` (the CLI), chain of ${n.toLocaleString("en")} stages with ${agent}, fixpoint ÷ floor`,
        value: ratio,
        unit: "×",
        budget: `≤ ${TARGET}×`,
        ok: ratio <= TARGET,
        detail: `median per stage: fixpoint ${median(fp).toFixed(2)} ms, floor ${median(floor).toFixed(2)} ms (the same agent, 1 SQLite commit${kind === "edit" ? ", 1 `git commit -qam`" : ""}, in a Node process of its own, children started with ${how})${plain}${withFile}; ${rounds} alternating rounds, the ratio the median of theirs (rounds: ${fp.map((f, r) => (f / (floor[r] as number)).toFixed(2)).join(", ")}); per stage the median over blocks of ${BLOCK} stages`,
      });
    }
  }
  return out;
}
