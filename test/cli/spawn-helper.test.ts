import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainWorkflow } from "../../bench/util.js";
import { createDemoRepo } from "../../src/demo/project.js";
import { exited, isolatedEnv, runCli, startCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";

/**
 * The worker starts agents and git from a small helper process when a fork from the worker is slow
 * (src/util/spawner.ts): it costs more the more memory the worker holds. Each
 * command agent here writes its parent's pid and its grandparent's, read from /proc, and takes a
 * tenth of a second: the helper, a Node process of its own, is ready after a few stages however
 * busy the machine is (CI once ran the last of 8 instant stages before it was).
 */
const STAGES = 12;

const AGENT =
  'cat > /dev/null; read -r a b c ppid rest < /proc/$PPID/stat; echo "$PPID $ppid" >> "$PARENTS"; sleep 0.1; echo implemented';

async function runChain(extra: Record<string, string>) {
  const root = makeTempDir("spawn-helper-");
  const repo = join(root, "repo");
  const parents = join(root, "parents.txt");
  createDemoRepo(repo);
  const env = isolatedEnv(root, { PARENTS: parents, ...extra });
  expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
  writeFileSync(
    join(repo, "fixpoint.kdl"),
    `agent "implementer" backend="command" command="sh" "-c" ${JSON.stringify(AGENT)} timeout="1m"\n`,
  );
  mkdirSync(join(repo, ".fixpoint", "workflows"), { recursive: true });
  writeFileSync(join(repo, ".fixpoint", "workflows", "chain.kdl"), chainWorkflow(STAGES));
  expect(runCli(["add", "a chain of agents", "--workflow", "chain"], { cwd: repo, env }).code).toBe(0);
  const worker = startCli(["work"], { cwd: repo, env });
  const code = await exited(worker);
  expect(code, worker.output()).toBe(0);
  const show = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: repo, env }).stdout);
  expect(show.task.status).toBe("completed");
  const lines = readFileSync(parents, "utf8").trim().split("\n");
  expect(lines).toHaveLength(STAGES);
  return { workerPid: worker.pid, pairs: lines.map((l) => l.split(" ").map(Number)), repo, env };
}

describe("the worker's spawn helper", () => {
  it("starts the later agents from a helper whose parent is the worker", async () => {
    // =1: whatever a fork from the worker costs on this machine (the helper starts when it is slow).
    const { workerPid, pairs } = await runChain({ FIXPOINT_SPAWN_HELPER: "1" });
    // The first agents start from the worker while the helper starts; from the first one the
    // helper started, every later one is the helper's too.
    const first = pairs.findIndex(([p]) => p !== workerPid);
    expect(first, JSON.stringify(pairs)).toBeGreaterThanOrEqual(0);
    const later = pairs.slice(first);
    expect(later.every(([p]) => p !== workerPid)).toBe(true);
    // One helper for the whole run, a child of the worker.
    expect(new Set(later.map(([p]) => p)).size).toBe(1);
    expect(later.every(([, grandparent]) => grandparent === workerPid)).toBe(true);
  }, 120_000);

  it("unset, with the native starter built, starts every agent from the worker itself with posix_spawn", async () => {
    const { workerPid, pairs, repo, env } = await runChain({});
    expect(pairs.every(([p]) => p === workerPid)).toBe(true);
    const doctor = JSON.parse(runCli(["doctor", "--offline", "--json"], { cwd: repo, env }).stdout);
    const starter = doctor.checks.find((c: { name: string }) => c.name === "child processes");
    expect(starter).toMatchObject({ status: "ok", detail: expect.stringContaining("posix_spawn") });
  }, 120_000);

  it("FIXPOINT_SPAWN_HELPER=0 starts every agent from the worker itself", async () => {
    const { workerPid, pairs } = await runChain({ FIXPOINT_SPAWN_HELPER: "0" });
    expect(pairs.every(([p]) => p === workerPid)).toBe(true);
  }, 120_000);
});
