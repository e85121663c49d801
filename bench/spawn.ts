import { spawn } from "node:child_process";
import { nativeSpawner } from "../src/util/native-spawn.js";
import { startChild } from "../src/util/spawner.js";
import { type BenchResult, median } from "./util.js";

/** Memory (MiB, touched) the benchmark process holds while it starts children, in this order. */
export const SPAWN_MEMORY_MIB = [0, 100, 300];
/** The spawner's cost may grow at most this much from the smallest to the largest process. */
const GROWTH_TARGET = 1.5;

/** One child (`true`, input on stdin, stdout and stderr read) started by Node's spawn here. */
function nodeSpawn(): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn("true", [], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.on("error", () => {});
    child.stdin.end("input");
    child.stdout.on("data", () => {});
    child.stderr.on("data", () => {});
    child.on("close", () => resolve());
  });
}

/**
 * The same child through fixpoint's spawner (src/util/spawner.ts), started as `setting` of
 * FIXPOINT_SPAWN_HELPER says: unset, by the native starter (posix_spawn) where it is built; "1",
 * from the helper process.
 */
function spawnerSpawn(setting: "1" | undefined): Promise<void> {
  if (setting === undefined) delete process.env.FIXPOINT_SPAWN_HELPER;
  else process.env.FIXPOINT_SPAWN_HELPER = setting;
  return new Promise((resolve) => {
    startChild(
      { command: "true", args: [], cwd: process.cwd(), env: process.env, detached: true, input: "input" },
      {
        spawned: () => {},
        failed: () => resolve(),
        stdout: () => {},
        stderr: () => {},
        closed: () => resolve(),
      },
    );
  });
}

async function perChild(start: () => Promise<void>, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await start();
  return (performance.now() - t0) / n;
}

/**
 * Starting a child process from a process that holds more and more memory: Node's spawn (a fork
 * of this process), fixpoint's helper (a fork of a small process, relayed) and fixpoint's spawner
 * as it starts children by default (posix_spawn by the native starter where it is built, else the
 * helper once forks are slow), alternately, in the same process. Every agent call and git command
 * of a worker is such a start.
 */
export async function benchSpawn(mibs: number[] = SPAWN_MEMORY_MIB, n = 100): Promise<BenchResult[]> {
  const saved = process.env.FIXPOINT_SPAWN_HELPER;
  const how =
    nativeSpawner() !== null ? "posix_spawn (the native starter)" : "the helper (no native starter built)";
  const ballast: Buffer[] = [];
  const rows: { mib: number; node: number; helper: number; spawner: number; rss: number }[] = [];
  try {
    // Warm-up: modules, the first JIT compiles, and the helper started and ready.
    for (let i = 0; i < 20; i++) await spawnerSpawn("1");
    for (let i = 0; i < 5; i++) await spawnerSpawn(undefined);
    await perChild(nodeSpawn, 5);
    let held = 0;
    for (const mib of [...mibs].sort((a, b) => a - b)) {
      // Touched memory, as a worker's heap and caches are: untouched pages cost a fork nothing.
      for (; held < mib; held++) ballast.push(Buffer.alloc(1 << 20, 1));
      const node: number[] = [];
      const helper: number[] = [];
      const spawner: number[] = [];
      for (let round = 0; round < 3; round++) {
        node.push(await perChild(nodeSpawn, Math.ceil(n / 3)));
        helper.push(await perChild(() => spawnerSpawn("1"), Math.ceil(n / 3)));
        spawner.push(await perChild(() => spawnerSpawn(undefined), Math.ceil(n / 3)));
      }
      rows.push({
        mib,
        node: median(node),
        helper: median(helper),
        spawner: median(spawner),
        rss: process.memoryUsage().rss / 2 ** 20,
      });
    }
  } finally {
    if (saved === undefined) delete process.env.FIXPOINT_SPAWN_HELPER;
    else process.env.FIXPOINT_SPAWN_HELPER = saved;
    ballast.length = 0;
  }
  const results: BenchResult[] = rows.map((r) => ({
    name: `starting a child process (\`true\`) from a process holding ${r.mib} MiB more, through the spawner, median`,
    value: r.spawner,
    unit: "ms",
    budget: "report",
    ok: true,
    detail: `started with ${how}; from the same process, Node's spawn: ${r.node.toFixed(2)} ms (spawner ÷ Node's spawn: ${(r.spawner / r.node).toFixed(2)}×), the helper: ${r.helper.toFixed(2)} ms; RSS ${r.rss.toFixed(0)} MiB; 3 alternating rounds of ${Math.ceil(n / 3)} children each`,
  }));
  const first = rows[0];
  const last = rows.at(-1);
  if (first !== undefined && last !== undefined && last !== first) {
    const growth = last.spawner / first.spawner;
    results.push({
      name: `starting a child process, process holding ${last.mib} ÷ ${first.mib} MiB more, through the spawner`,
      value: growth,
      unit: "×",
      budget: `≤ ${GROWTH_TARGET}×`,
      ok: growth <= GROWTH_TARGET,
      detail: `${first.spawner.toFixed(2)} → ${last.spawner.toFixed(2)} ms with ${how}; the helper: ${first.helper.toFixed(2)} → ${last.helper.toFixed(2)} ms; Node's spawn from the same process: ${first.node.toFixed(2)} → ${last.node.toFixed(2)} ms (${(last.node / first.node).toFixed(2)}×)`,
    });
  }
  return results;
}
