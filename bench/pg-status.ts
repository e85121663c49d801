import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../src/store/open.js";
import { STORED_KEYS } from "../src/store/postgres/migrations/010_status_values.js";
import { STATUS_AFTER, UPDATED_AFTER } from "../src/store/postgres/task-json-sql.js";
import { benchDatabase } from "./pg-database.js";
import { CLI, timed } from "./status.js";
import { type BenchResult, median } from "./util.js";

/**
 * `fixpoint --database postgres://… status --json` over 1k, 10k and 100k tasks (issue 10 (d), with
 * the PostgreSQL store), the whole process read through a pipe, alternated in one run with
 * `fixpoint status` (the table: its lines written from each page's columns, task-line-page.ts, and
 * the totals) and:
 * - a bare `node -e 0`;
 * - a Node program that loads node-postgres, connects, reads the same stored values
 *   (`tasks.status_json`) as rows of one query and writes the same objects: what a script printing
 *   them with this driver's rows pays. fixpoint reads them as binary COPY instead, in pages of
 *   10,000 (src/store/postgres/task-json-page.ts), so it can be faster than this program.
 *
 * The server: FIXPOINT_BENCH_DATABASE_URL (an admin URL; a database is created in it), else a
 * throwaway server started like the tests' (test/helpers/pg-server.ts). Sizes:
 * FIXPOINT_BENCH_PG_TASKS.
 */
export const PG_STATUS_SIZES = [1_000, 10_000, 100_000];
const TARGET_MS = (n: number) => (n <= 10_000 ? 250 : 300);
const RUNS = 7;

/**
 * `n` tasks as bench/status.ts makes them (2 KB prompts, a quarter each completed, needing a
 * person, queued and failed), written in one statement: the store's schema first (opening it
 * migrates), then the rows, whose `status_json` the server generates as it would for the store's
 * own writes.
 */
async function populate(url: string, root: string, n: number): Promise<void> {
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
  writeFileSync(join(root, "fixpoint.kdl"), "// bench\n");
  await (await openStore(url, root)).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, max_cycles, status, final_verdict, cycle, created_at, updated_at)
       SELECT 't-' || g, g, 'implement', 'Task number ' || (g - 1) || ' with a realistic title', repeat('x', 2000),
         'implement-review', $2, 'main', 3,
         (ARRAY['completed', 'needs_human', 'queued', 'failed'])[1 + (g - 1) % 4],
         (ARRAY['APPROVED', 'MAX_CYCLES_REACHED', NULL, 'MAX_CYCLES_REACHED'])[1 + (g - 1) % 4],
         CASE WHEN (g - 1) % 4 = 2 THEN 0 ELSE 2 END,
         $3::bigint + g, $3::bigint + g
       FROM generate_series(1, $1::int) AS g`,
      [n, root, Date.now()],
    );
    await client.query("VACUUM ANALYZE tasks");
  } finally {
    await client.end();
  }
}

/**
 * The floor program: node-postgres, one query over the stored values with the status, verdict and
 * time they leave out, the keys put between them (migration 010), the same bytes out.
 */
const floorProgram = (url: string): string[] => [
  "-e",
  `const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve("pg"))});
(async () => {
  const keys = ${JSON.stringify(STORED_KEYS)};
  const c = new pg.Client({ connectionString: ${JSON.stringify(url)} });
  await c.connect();
  let out = [], size = 0, first = true;
  const writes = [];
  const flush = () => { const text = out.join(""); out = []; size = 0; writes.push(new Promise((r) => (process.stdout.write(text) ? r() : process.stdout.once("drain", r)))); };
  process.stdout.write("[");
  const q = new pg.Query({ text: "SELECT status_json, status, final_verdict, updated_at FROM tasks WHERE status <> 'cancelled' ORDER BY seq", rowMode: "array" });
  q.on("row", ([s, status, verdict, updated]) => {
    const values = s.slice(1).split("\\u0001");
    let o = "{";
    for (let i = 0; i < keys.length; i++) {
      o += (i > 0 ? "," : "") + JSON.stringify(keys[i]) + ":" + values[i];
      if (i === ${STATUS_AFTER}) o += ',"status":' + JSON.stringify(status) + ',"final_verdict":' + JSON.stringify(verdict);
      if (i === ${UPDATED_AFTER}) o += ',"updated_at":"' + new Date(Number(updated)).toISOString() + '"';
    }
    o += "}";
    out.push(first ? o : "," + o); first = false; size += o.length;
    if (size > 400000) flush();
  });
  await new Promise((res, rej) => { q.on("end", res); q.on("error", rej); c.query(q); });
  out.push("]\\n");
  flush();
  await Promise.all(writes);
  await c.end();
})();`,
];

export async function benchPgStatus(sizes: number[] = PG_STATUS_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const n of sizes) {
    const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-pg-status-"));
    const db = await benchDatabase();
    try {
      await populate(db.url, root, n);
      const env = { PATH: process.env.PATH, HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh") };
      const args = [CLI, "--database", db.url, "status", "--json"];
      const tableArgs = [CLI, "--database", db.url, "status"];
      const bytes = timed(args, root, env).bytes;
      const tableBytes = timed(tableArgs, root, env).bytes;
      const ours: number[] = [];
      const table: number[] = [];
      const floor: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        bare.push(timed(["-e", "0"], root, env).ms);
        const f = timed(floorProgram(db.url), root, env);
        if (f.bytes !== bytes) throw new Error(`the floor program wrote ${f.bytes} bytes, fixpoint ${bytes}`);
        floor.push(f.ms);
        ours.push(timed(args, root, env).ms);
        table.push(timed(tableArgs, root, env).ms);
      }
      const m = median(ours);
      const fl = median(floor);
      const target = TARGET_MS(n);
      out.push({
        name: `\`fixpoint status --json\` with PostgreSQL, ${n.toLocaleString("en")} tasks, whole process, median`,
        value: m,
        unit: "ms",
        budget: `≤ ${target} ms`,
        ok: m <= target,
        detail: `${RUNS} runs, ${(bytes / 2 ** 20).toFixed(1)} MiB of JSON, the server on this machine; ${(m / target).toFixed(2)}× the target; alternated with a Node program printing the same bytes from the same server as node-postgres rows of one query: ${fl.toFixed(0)} ms (fixpoint ${(m / fl).toFixed(2)}× that); a bare \`node -e 0\`: ${median(bare).toFixed(0)} ms`,
      });
      const t = median(table);
      out.push({
        name: `\`fixpoint status\` (the table) with PostgreSQL, ${n.toLocaleString("en")} tasks, whole process, median`,
        value: t,
        unit: "ms",
        budget: `≤ ${target} ms`,
        ok: t <= target,
        detail: `${RUNS} runs alternated with the rows above, ${(tableBytes / 2 ** 20).toFixed(1)} MiB of lines and the totals; ${(t / target).toFixed(2)}× the target; a bare \`node -e 0\`: ${median(bare).toFixed(0)} ms`,
      });
    } finally {
      await db.drop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    }
  }
  return out;
}
