import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/store/open.js";
import { type BenchResult, median } from "./util.js";

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const TASKS = 10_000;

/** `fixpoint status --json` with 10,000 tasks in the store, the whole process, median of 7. */
export async function benchStatus(): Promise<BenchResult> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-status-"));
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
  writeFileSync(join(root, "fixpoint.kdl"), "// bench\n");
  const store = await openStore("sqlite", root);
  const statuses = ["completed", "needs_human", "queued", "failed"] as const;
  for (let i = 0; i < TASKS; i++) {
    const t = await store.createTask(
      {
        type: "implement",
        title: `Task number ${i} with a realistic title`,
        prompt: "x".repeat(200),
        workflow: "implement-review",
        repo: root,
        baseBranch: "main",
        maxCycles: 3,
      },
      Date.now(),
    );
    const status = statuses[i % statuses.length] as (typeof statuses)[number];
    if (status !== "queued")
      await store.updateTask(
        t.id,
        { status, finalVerdict: status === "completed" ? "APPROVED" : "MAX_CYCLES_REACHED", cycle: 2 },
        Date.now(),
      );
  }
  await store.close();
  const env = { PATH: process.env.PATH, HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh") };
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, [CLI, "status", "--json"], {
      cwd: root,
      env,
      maxBuffer: 64 * 2 ** 20,
    });
    times.push(performance.now() - start);
    if (r.status !== 0) throw new Error(`status failed: ${r.stderr}`);
    bytes = r.stdout.length;
  }
  const m = median(times);
  return {
    name: "`fixpoint status --json`, 10,000 tasks, whole process, median",
    value: m,
    unit: "ms",
    budget: "≤ 250 ms",
    ok: m <= 250,
    detail: `7 runs, ${(bytes / 2 ** 20).toFixed(1)} MiB of JSON; min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (a bare \`node -e 0\` takes ${nodeStartup().toFixed(0)} ms here)`,
  };
}

function nodeStartup(): number {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    spawnSync(process.execPath, ["-e", "0"]);
    xs.push(performance.now() - s);
  }
  return median(xs);
}
