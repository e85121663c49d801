import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { exited, isolatedEnv, runCli, startCli, waitFor } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";

/**
 * Agents die with their worker (issue 14, item 3), with a real process tree: a command agent that
 * spawns a grandchild which sleeps. The agent's group is recorded in the store with the host; a
 * worker killed by SIGKILL leaves the tree running, and the next worker kills it before its own
 * agent starts; a worker stopped by a signal takes its agents' groups down with it.
 */

/** The agent: first call spawns a sleeping grandchild and hangs; later calls report and finish. */
const AGENT = `import { spawn } from "node:child_process";
import { existsSync, writeFileSync, appendFileSync, readFileSync, renameSync } from "node:fs";
const dir = process.env.PIDS_DIR;
// Written beside and renamed into place, so a reader never sees a created but empty file.
const put = (name, text) => { writeFileSync(dir + "/" + name + ".tmp", text); renameSync(dir + "/" + name + ".tmp", dir + "/" + name); };
// Running, not a zombie waiting for a lazy reaper (PID 1 in a container may reap late).
const alive = (pid) => { try { const s = readFileSync("/proc/" + pid + "/stat", "utf8"); return s.slice(s.lastIndexOf(")") + 2)[0] !== "Z"; } catch { return false; } };
if (!existsSync(dir + "/first")) {
  put("first", String(process.pid));
  const g = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  put("grandchild", String(g.pid));
  setInterval(() => {}, 1000);
} else {
  const old = [readFileSync(dir + "/first", "utf8"), readFileSync(dir + "/grandchild", "utf8")].map(Number);
  appendFileSync(dir + "/second", JSON.stringify({ pid: process.pid, oldAlive: old.filter(alive) }) + "\\n");
  readFileSync(0);
  process.stdout.write("implemented");
}
`;

const started: number[] = [];
afterEach(() => {
  // Never leave a test's processes behind, whatever happened.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Alive and not a zombie waiting for a lazy reaper. */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return alive(pid);
  }
}

function setup(name: string) {
  const root = makeTempDir(name);
  const repo = join(root, "repo");
  const pids = join(root, "pids");
  createDemoRepo(repo);
  const env = isolatedEnv(root, { PIDS_DIR: pids });
  expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
  mkdirSync(pids);
  writeFileSync(join(root, "agent.mjs"), AGENT);
  writeFileSync(
    join(repo, "fixpoint.kdl"),
    `agent "implementer" backend="command" command="node" ${JSON.stringify(join(root, "agent.mjs"))} timeout="2m"\n`,
  );
  expect(runCli(["add", "grow a tree", "--workflow", "implement-only"], { cwd: repo, env }).code).toBe(0);
  return { root, repo, pids, env };
}

async function firstTree(pids: string): Promise<{ agent: number; grandchild: number }> {
  await waitFor(() => existsSync(join(pids, "grandchild")), 30_000, "the agent's grandchild");
  const agent = Number(readFileSync(join(pids, "first"), "utf8"));
  const grandchild = Number(readFileSync(join(pids, "grandchild"), "utf8"));
  started.push(agent, grandchild);
  return { agent, grandchild };
}

describe("agents die with their worker", () => {
  it("SIGKILL of a worker leaves its agent tree; the next worker kills it before its own agent starts", async () => {
    const { repo, pids, env } = setup("groups-kill-");
    const w1 = startCli(["work"], { cwd: repo, env });
    if (w1.pid) started.push(w1.pid);
    const tree = await firstTree(pids);

    // The group is recorded with this host, under the agent's pid (it leads its own group).
    const db = new Database(join(repo, ".fixpoint", "fixpoint.db"), { readonly: true });
    await waitFor(
      () => db.prepare("SELECT count(*) FROM agent_groups WHERE pgid = ?").pluck().get(tree.agent) === 1,
      10_000,
      "the recorded group",
    );
    const row = db.prepare("SELECT task_id, host FROM agent_groups WHERE pgid = ?").get(tree.agent);
    expect(row).toEqual({ task_id: "t-1", host: hostname() });
    db.close();

    w1.kill("SIGKILL");
    await exited(w1);
    // What the issue saw: the tree survives its worker.
    expect(running(tree.agent)).toBe(true);
    expect(running(tree.grandchild)).toBe(true);

    const w2 = runCli(["work"], { cwd: repo, env, timeoutMs: 60_000 });
    expect(w2.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(pids, "second")), `the next worker ran no agent:\n${w2.stdout}${w2.stderr}`).toBe(
      true,
    );
    const second = readFileSync(join(pids, "second"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(second).toHaveLength(1);
    expect(second[0].oldAlive).toEqual([]); // gone before the new agent started
    expect(running(tree.agent)).toBe(false);
    expect(running(tree.grandchild)).toBe(false);
    const show = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: repo, env }).stdout);
    expect(show.task.status).toBe("completed");
    const after = new Database(join(repo, ".fixpoint", "fixpoint.db"), { readonly: true });
    expect(after.prepare("SELECT count(*) FROM agent_groups").pluck().get()).toBe(0);
    after.close();
  }, 120_000);

  it.each(["SIGTERM", "SIGHUP", "SIGINT"] as const)(
    "a worker stopped by a second %s takes its agent's whole tree down with it",
    async (signal) => {
      const { repo, pids, env } = setup("groups-signal-");
      const w = startCli(["work"], { cwd: repo, env });
      if (w.pid) started.push(w.pid);
      const tree = await firstTree(pids);
      // The first signal drains (the stage may finish); the second stops it at once.
      w.kill(signal);
      await waitFor(() => w.output().includes(`${signal}: draining`), 10_000, "the drain notice");
      expect(running(tree.agent)).toBe(true);
      w.kill(signal);
      await exited(w);
      await waitFor(() => !running(tree.agent) && !running(tree.grandchild), 10_000, "the tree to die");
      expect(w.output()).not.toMatch(/\n\s+at /);
    },
    60_000,
  );
});
