import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/store/open.js";
import type { BenchResult } from "./util.js";

const TASKS = 5_000;

/** SPEC §14: task claims on SQLite, one process. */
const TARGET_PER_S = 5_000;

/** Task claims per second on SQLite, one process. */
export async function benchClaimsSqlite(): Promise<BenchResult> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-claims-"));
  const store = await openStore("sqlite", root);
  for (let i = 0; i < TASKS; i++) {
    await store.createTask(
      {
        type: "implement",
        title: `t${i}`,
        prompt: "p",
        workflow: "w",
        repo: root,
        baseBranch: "main",
        maxCycles: 1,
      },
      Date.now(),
    );
  }
  const start = performance.now();
  let claimed = 0;
  for (;;) {
    const t = await store.claimTask({ workerId: "bench", leaseMs: 60_000, now: Date.now() });
    if (!t) break;
    claimed++;
  }
  const seconds = (performance.now() - start) / 1000;
  await store.close();
  rmSync(root, { recursive: true, force: true });
  const rate = claimed / seconds;
  return {
    name: "task claims, SQLite, one process",
    value: rate,
    unit: "claims/s",
    budget: `≥ ${TARGET_PER_S.toLocaleString("en")}/s`,
    ok: rate >= TARGET_PER_S && claimed === TASKS,
    detail: `${claimed} of ${TASKS} tasks claimed in ${seconds.toFixed(2)} s`,
  };
}
