import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { benchClaimsSqlite } from "./claims.js";
import { benchConvergence } from "./convergence.js";
import { benchDedup } from "./dedup.js";
import { benchEngineOverhead } from "./engine-overhead.js";
import { benchPromptCache } from "./prompt-cache.js";
import { benchStatus } from "./status.js";
import { type BenchResult, machine } from "./util.js";

/**
 * `npm run bench`: every SPEC §14 budget we can measure here, one after another (never in
 * parallel, so they do not disturb each other), written to docs/benchmarks.md.
 */
const BENCHES: [string, () => Promise<BenchResult | BenchResult[]>][] = [
  ["engine", benchEngineOverhead],
  ["status", benchStatus],
  ["claims", benchClaimsSqlite],
  ["convergence", benchConvergence],
  ["prompt-cache", benchPromptCache],
  [
    "dedup",
    async () => {
      const r = await benchDedup();
      return {
        name: "deduplicating 10,000 findings over 500 files, median",
        value: r.medianMs,
        unit: "ms",
        budget: `≤ ${r.budgetMs} ms`,
        ok: r.medianMs <= r.budgetMs,
        detail: `${r.runs} runs of the batch dedup on seeded synthetic findings`,
      };
    },
  ],
];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const results: BenchResult[] = [];
  for (const [key, run] of BENCHES) {
    if (only.length && !only.includes(key)) continue;
    process.stdout.write(`running ${key}…\n`);
    const r = await run();
    for (const x of Array.isArray(r) ? r : [r]) {
      results.push(x);
      process.stdout.write(
        `  ${x.ok ? "ok  " : "OVER"} ${x.name}: ${fmt(x.value)} ${x.unit} (budget ${x.budget}) — ${x.detail}\n`,
      );
    }
  }
  if (only.length === 0) writeReport(results);
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}

function fmt(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
}

function writeReport(results: BenchResult[]): void {
  const path = fileURLToPath(new URL("../../docs/benchmarks.md", import.meta.url));
  const rows = results.map(
    (r) =>
      `| ${r.name} | **${fmt(r.value)} ${r.unit}** | ${r.budget} | ${r.ok ? "met" : "NOT met"} | ${r.detail} |`,
  );
  const text = `# Benchmarks

Measured by \`npm run bench\` (sources in \`bench/\`) on ${new Date().toISOString().slice(0, 10)}.
Machine: ${machine()}.

| what | measured | budget (SPEC §14) | | how |
|---|---|---|---|---|
${rows.join("\n")}

Notes:
- The engine benchmark runs the real engine, worker and SQLite store on a real file with a no-op
  scripted agent and a git that does nothing, so it measures fixpoint's own work per stage: the
  handler, effects, the pure decision and the one-transaction checkpoint.
- The status benchmark times the whole \`fixpoint status --json\` process, Node's own start-up
  included.
- Not measured: task claims on PostgreSQL with 8 worker processes (SPEC §14). The store has
  only its SQLite implementation so far; the contract suite in \`test/store/contract.ts\` is
  ready for a PostgreSQL one.
- Agent CLIs end to end (real Claude Code, Codex and pi against the fake model server): see
  [e2e-timings.md](e2e-timings.md).
`;
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
