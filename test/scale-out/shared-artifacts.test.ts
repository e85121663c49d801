/**
 * A task run in one clone; `show` and `logs --agent` in another clone on the same store find its
 * review files and agent transcripts through the database (the other clone has none on disk).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { FIXTURE_AGENTS, git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

describe("artifacts shared through the store", () => {
  it("show and logs --agent in another clone read what the first clone's worker stored", () => {
    const root = tempDir();
    const a = join(root, "a");
    const b = join(root, "b");
    createDemoRepo(a);
    git(root, "clone", "-q", "--bare", a, join(root, "remote.git"));
    git(root, "clone", "-q", join(root, "remote.git"), b);
    const env = isolatedEnv(root, {
      FIXPOINT_DATABASE_URL: `sqlite:${join(root, "shared.db")}`,
      FIXPOINT_TEST_COUNTS: join(root, "counts.jsonl"),
    });
    for (const c of [a, b]) {
      expect(runCli(["init"], { cwd: c, env }).code).toBe(0);
      writeFileSync(join(c, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
    }
    expect(runCli(["add", "Add mean() and median() to src/stats.js"], { cwd: a, env }).code).toBe(0);
    expect(runCli(["work"], { cwd: a, env, timeoutMs: 90_000 }).code).toBe(0);

    expect(existsSync(join(b, ".fixpoint", "reviews"))).toBe(false);
    const shown = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: b, env }).stdout) as {
      artifacts: { reviews: string[] };
    };
    const here = shown.artifacts.reviews;
    expect(here.length).toBeGreaterThan(0);
    for (const path of here) {
      expect(path.startsWith(join(b, ".fixpoint", "reviews"))).toBe(true);
      const name = path.slice(path.lastIndexOf("/") + 1);
      expect(readFileSync(path, "utf8")).toBe(readFileSync(join(a, ".fixpoint", "reviews", name), "utf8"));
    }

    const logsA = runCli(["logs", "t-1", "--agent"], { cwd: a, env }).stdout;
    const logsB = runCli(["logs", "t-1", "--agent"], { cwd: b, env }).stdout;
    expect(logsB).toContain("===== r1-implement-");
    expect(logsB).toBe(logsA);
  }, 150_000);
});
