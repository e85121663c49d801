import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { groupAlive } from "./process-group.js";

/** Starts `sh -c script` as the leader of a new process group and returns its pgid. */
async function group(script: string) {
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  await once(child, "spawn");
  return { pgid: child.pid ?? 0, exited: once(child, "exit") };
}

describe("groupAlive", () => {
  it("is true while a member runs, and false once the group is empty", async () => {
    const g = await group("sleep 0.3");
    expect(groupAlive(g.pgid)).toBe(true);
    await g.exited;
    // Node reaps the leader on exit; wait for that so the group is truly empty.
    await new Promise((r) => setTimeout(r, 20));
    expect(groupAlive(g.pgid)).toBe(false);
  });

  it("is true while a member outlives its leader", async () => {
    // The leader exits at once; the background sleep keeps the group alive.
    const g = await group("sleep 0.4 & exit 0");
    await g.exited;
    expect(groupAlive(g.pgid)).toBe(true);
    const deadline = Date.now() + 5_000;
    while (groupAlive(g.pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(groupAlive(g.pgid)).toBe(false);
  });

  it("is false for a group that never existed", () => {
    // Pids are below 2^22 on Linux; a negative kill to this pgid finds nobody.
    expect(groupAlive(4_194_000)).toBe(false);
  });
});
