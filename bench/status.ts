import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/store/open.js";
import { type BenchResult, median, repoRoot } from "./util.js";

/** The `fixpoint` users run: the bundled binary (scripts/bundle-cli.mjs). */
export const CLI = join(repoRoot(), "dist", "bin", "fixpoint.js");
/** Issue 10 (d) and SPEC §14: the whole `status --json` process. */
export const STATUS_SIZES = [1_000, 10_000, 100_000];
const TARGET_MS = (n: number) => (n <= 10_000 ? 250 : 300);
const RUNS = 7;

async function populate(root: string, n: number): Promise<void> {
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
  writeFileSync(join(root, "fixpoint.kdl"), "// bench\n");
  const store = await openStore("sqlite", root);
  const statuses = ["completed", "needs_human", "queued", "failed"] as const;
  await store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const t = await tx.createTask(
        {
          type: "implement",
          title: `Task number ${i} with a realistic title`,
          prompt: "x".repeat(2000),
          workflow: "implement-review",
          repo: root,
          baseBranch: "main",
          maxCycles: 3,
        },
        Date.now(),
      );
      const status = statuses[i % statuses.length] as (typeof statuses)[number];
      if (status !== "queued")
        await tx.updateTask(
          t.id,
          { status, finalVerdict: status === "completed" ? "APPROVED" : "MAX_CYCLES_REACHED", cycle: 2 },
          Date.now(),
        );
    }
  });
  await store.close();
}

/**
 * The whole process of `node <args>`, its output read through a pipe by this process (as a
 * script calling it reads it), or, given `toFile`, written to that file (`> tasks.json`).
 */
export function timed(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  toFile?: string,
): { ms: number; bytes: number } {
  const fd = toFile === undefined ? null : openSync(toFile, "w");
  try {
    const start = performance.now();
    const r = spawnSync(process.execPath, args, {
      cwd,
      env,
      maxBuffer: 512 * 2 ** 20,
      ...(fd === null ? {} : { stdio: ["ignore", fd, "pipe"] }),
    });
    const ms = performance.now() - start;
    if (r.status !== 0) throw new Error(`${args.join(" ")} failed: ${r.stderr}`);
    return { ms, bytes: fd === null ? r.stdout.length : fstatSync(fd).size };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * The cost of each task added since the previous size, Node's start and fixpoint's fixed cost
 * cancelled out: about the same at every step when the listing grows linearly.
 */
const marginal = (prev: { n: number; own: number } | undefined, n: number, own: number): string =>
  prev === undefined || n <= prev.n
    ? ""
    : `; ${(((own - prev.own) * 1000) / (n - prev.n)).toFixed(2)} µs per task added since ${prev.n.toLocaleString("en")}`;

/**
 * The least any Node program printing the same output pays on this machine: start, then write
 * `bytes` of text in 100 KiB pages to the pipe, waiting for it to drain as `status --json` does.
 * At 100,000 tasks (39 MiB) this alone is a large part of the budget on a slow machine, so the
 * report gives fixpoint's time against it too.
 */
const bareWriter = (bytes: number): string[] => [
  "-e",
  `const page = "x".repeat(102400); let left = ${bytes};
(async () => { while (left > 0) { const s = left >= page.length ? page : page.slice(0, left); left -= s.length;
  if (!process.stdout.write(s)) await new Promise((r) => process.stdout.once("drain", r)); } })();`,
];

/** Other commands that read the whole store, timed on the same tasks, and what each reads. */
const OTHER_COMMANDS = [
  {
    args: ["reviewers"],
    reads: "every finding and review stage in two reads (before: two reads per task, 1.9 s at 100,000 tasks)",
  },
  {
    args: ["clean", "--dry-run"],
    reads: "the finished tasks that hold a worktree (before: every task, 1.3 s at 100,000)",
  },
];

/**
 * `fixpoint status --json` and `fixpoint status` (the table) over `n` tasks (2 KB prompts each),
 * the whole process, each read through a pipe and written to a file, alternating with a bare
 * `node -e 0` and with a bare Node program writing the same number of bytes (bareWriter), so all
 * see the same machine. Sizes: STATUS_SIZES or the argument.
 */
export async function benchStatus(sizes: number[] = STATUS_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  let prev: { n: number; own: number } | undefined;
  for (const n of sizes) {
    const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-status-"));
    try {
      await populate(root, n);
      const env = { PATH: process.env.PATH, HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh") };
      // Opens (and migrates) the store once, and says how much there is to print.
      const bytes = timed([CLI, "status", "--json"], root, env).bytes;
      const ours: number[] = [];
      const bare: number[] = [];
      const writer: number[] = [];
      const table: number[] = [];
      const toFile: number[] = [];
      const tableToFile: number[] = [];
      const file = join(root, "tasks.json");
      const tableFile = join(root, "tasks.txt");
      let tableBytes = 0;
      const others = OTHER_COMMANDS.map((c) => ({ ...c, ms: [] as number[] }));
      for (let i = 0; i < RUNS; i++) {
        for (const o of others) o.ms.push(timed([CLI, ...o.args], root, env).ms);
        bare.push(timed(["-e", "0"], root, env).ms);
        writer.push(timed(bareWriter(bytes), root, env).ms);
        ours.push(timed([CLI, "status", "--json"], root, env).ms);
        const f = timed([CLI, "status", "--json"], root, env, file);
        if (f.bytes !== bytes)
          throw new Error(`status --json wrote ${f.bytes} bytes to a file, ${bytes} to a pipe`);
        toFile.push(f.ms);
        const t = timed([CLI, "status"], root, env);
        table.push(t.ms);
        tableBytes = t.bytes;
        const tf = timed([CLI, "status"], root, env, tableFile);
        if (tf.bytes !== tableBytes)
          throw new Error(`status wrote ${tf.bytes} bytes to a file, ${tableBytes} to a pipe`);
        tableToFile.push(tf.ms);
      }
      const m = median(ours);
      const floor = median(bare);
      const printing = median(writer);
      const own = m - floor;
      const target = TARGET_MS(n);
      out.push({
        name: `\`fixpoint status --json\`, ${n.toLocaleString("en")} tasks, whole process, median`,
        value: m,
        unit: "ms",
        budget: `≤ ${target} ms`,
        ok: m <= target,
        detail: `${RUNS} runs, ${(bytes / 2 ** 20).toFixed(1)} MiB of JSON; ${(m / target).toFixed(2)}× the target; a bare \`node -e 0\` alternated with it: ${floor.toFixed(0)} ms; a bare Node program writing the same bytes: ${printing.toFixed(0)} ms (fixpoint ${(m / printing).toFixed(2)}× that)${marginal(prev, n, own)}`,
      });
      const fm = median(toFile);
      out.push({
        name: `\`fixpoint status --json > tasks.json\`, ${n.toLocaleString("en")} tasks, whole process, median`,
        value: fm,
        unit: "ms",
        budget: `≤ ${target} ms`,
        ok: fm <= target,
        detail: `${RUNS} runs, alternated with the pipe above; the same bytes written to a file, so no reader's work shares the machine with fixpoint's; ${(fm / target).toFixed(2)}× the target; ${(fm / m).toFixed(2)}× through the pipe`,
      });
      const tm = median(table);
      out.push({
        name: `\`fixpoint status\` (the table), ${n.toLocaleString("en")} tasks, whole process, median`,
        value: tm,
        unit: "ms",
        budget: `≤ ${target} ms`,
        ok: tm <= target,
        detail: `${RUNS} runs, alternated with the JSON above, ${(tableBytes / 2 ** 20).toFixed(1)} MiB of lines and the totals; ${(tm / target).toFixed(2)}× the target; ${(tm / m).toFixed(2)}× \`--json\` (lines as the store recorded them, migration 018)`,
      });
      const tfm = median(tableToFile);
      out.push({
        name: `\`fixpoint status > tasks.txt\` (the table), ${n.toLocaleString("en")} tasks, whole process, median`,
        value: tfm,
        unit: "ms",
        budget: `≤ ${target} ms`,
        ok: tfm <= target,
        detail: `${RUNS} runs, alternated with the table through the pipe above; the same bytes written to a file; ${(tfm / target).toFixed(2)}× the target; ${(tfm / tm).toFixed(2)}× through the pipe`,
      });
      for (const o of others) {
        const om = median(o.ms);
        out.push({
          name: `\`fixpoint ${o.args.join(" ")}\`, ${n.toLocaleString("en")} tasks, whole process, median`,
          value: om,
          unit: "ms",
          budget: `≤ ${target} ms`,
          ok: om <= target,
          detail: `${RUNS} runs, alternated with the listings above; it reads ${o.reads}; ${(om / target).toFixed(2)}× the target`,
        });
      }
      prev = { n, own };
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return out;
}
