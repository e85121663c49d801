import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { afterNextSpawn, LATEST_MS, runAfterSpawnJobs } from "./after-spawn.js";
import { startChild } from "./spawner.js";

describe("jobs after the next spawn", () => {
  it("run right after the next child is started, before it ends, in the order they were queued", async () => {
    const ran: string[] = [];
    afterNextSpawn(() => ran.push("a"));
    afterNextSpawn(() => ran.push("b"));
    expect(ran).toEqual([]);
    await new Promise<void>((resolve, reject) => {
      startChild(
        { command: "sleep", args: ["0.2"], cwd: tmpdir(), env: process.env, detached: false },
        {
          spawned: () => ran.push("spawned"),
          failed: reject,
          stdout: () => undefined,
          stderr: () => undefined,
          closed: () => {
            ran.push("closed");
            resolve();
          },
        },
      );
      // Run by startChild itself, before it returned.
      ran.push("returned");
    });
    expect(ran).toEqual(["spawned", "a", "b", "returned", "closed"]);
  });

  it("run after LATEST_MS when no child is started", async () => {
    const t0 = performance.now();
    const waited = await new Promise<number>((resolve) =>
      afterNextSpawn(() => resolve(performance.now() - t0)),
    );
    expect(waited).toBeGreaterThanOrEqual(LATEST_MS - 1);
  });

  it("run at once when asked, each once", () => {
    let n = 0;
    afterNextSpawn(() => n++);
    runAfterSpawnJobs();
    runAfterSpawnJobs();
    expect(n).toBe(1);
  });
});
