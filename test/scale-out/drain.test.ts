/**
 * `fixpoint work` drains on SIGTERM: it claims nothing more, lets the running stage finish and be
 * recorded, hands the task back to the queue with its checkpoint, leaves the workers registry and
 * exits 0. The next worker continues from that checkpoint: the drained stage does not run again.
 */
import { existsSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exited, isolatedEnv, runCli, startCli, tempDir, waitFor } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";
import { bareWithClones, type Invocation, writeProjectFiles } from "./project.js";

describe("SIGTERM drains a worker", () => {
  it("finishes the running stage, hands the task back, leaves the registry, exits 0", async () => {
    const root = tempDir();
    const { clones } = bareWithClones(root, ["a"]);
    const repo = clones[0] as string;
    const counts = `${root}/counts.jsonl`;
    const env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: counts, FIXPOINT_TEST_HOLD_STAGE: "two" });
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    writeProjectFiles(repo);
    expect(runCli(["add", "first task"], { cwd: repo, env }).code).toBe(0);
    expect(runCli(["add", "second task"], { cwd: repo, env }).code).toBe(0);

    const worker = startCli(["work"], { cwd: repo, env });
    await waitFor(() => existsSync(`${counts}.holding`), 30_000, "stage two to start");
    const workers = JSON.parse(runCli(["workers", "--json"], { cwd: repo, env }).stdout) as unknown[];
    expect(workers).toHaveLength(1);
    worker.kill("SIGTERM");
    await waitFor(() => worker.output().includes("SIGTERM: draining"), 10_000, "the drain notice");
    writeFileSync(`${counts}.release`, "1");
    expect(await exited(worker)).toBe(0);

    const status = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
      id: string;
      status: string;
    }[];
    expect(status.map((t) => [t.id, t.status])).toEqual([
      ["t-1", "queued"],
      ["t-2", "queued"],
    ]);
    expect(JSON.parse(runCli(["workers", "--json"], { cwd: repo, env }).stdout)).toEqual([]);
    const drained = readJsonLines<Invocation>(counts);
    // Stage two finished (recorded), stage three never started, the second task was never claimed.
    expect(drained.map((i) => `${i.task}:${i.stage}`)).toEqual(["t-1:one", "t-1:two"]);

    const again = runCli(["work"], { cwd: repo, env, timeoutMs: 60_000 });
    expect(again.code).toBe(0);
    const done = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
      status: string;
      final_verdict: string;
    }[];
    expect(done.every((t) => t.status === "completed" && t.final_verdict === "APPROVED")).toBe(true);
    const all = readJsonLines<Invocation>(counts).map((i) => `${i.task}:${i.stage}`);
    expect(all.filter((s) => s.startsWith("t-1:"))).toEqual(["t-1:one", "t-1:two", "t-1:three"]);
    expect(all.filter((s) => s.startsWith("t-2:"))).toEqual(["t-2:one", "t-2:two", "t-2:three"]);
  }, 120_000);
});
