import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { STATUS_JSON_PAGE } from "../../src/cli/render/json.js";
import { CLI, demoProject, moduleReport } from "../helpers/cli.js";
import { fillTasks } from "../helpers/fill-tasks.js";

/**
 * `status --json` past a dozen pages: from there the CLI collects the young generation between
 * pages (src/util/young-garbage.ts) so that the pages' memory is reused. The listing must come out
 * whole, in order and redacted all the same.
 */
describe("status --json over many pages", () => {
  it("prints every task once, in order, redacted, while collecting between pages", async () => {
    const { root, repo, env } = demoProject("long-listing-");
    const n = STATUS_JSON_PAGE * 14 + 37;
    const secret = "deploy-value-8815-kept-in-env";
    await fillTasks(repo, n, (i) =>
      i === n - 2 ? `late task with ${secret}` : `task ${i} ${"é".repeat(i % 3)}`,
    );
    const report = moduleReport(root);
    const r = spawnSync(process.execPath, ["-r", report.preload, CLI, "status", "--json"], {
      cwd: repo,
      env: { ...env, DEPLOY_TOKEN: secret },
      encoding: "utf8",
      maxBuffer: 256 * 2 ** 20,
    });
    expect(r.status, r.stderr).toBe(0);
    const tasks = JSON.parse(r.stdout) as { id: string; title: string }[];
    expect(tasks).toHaveLength(n);
    expect(tasks.map((t) => t.id)).toEqual(Array.from({ length: n }, (_, i) => `t-${i + 1}`));
    expect(tasks[n - 2]?.title).toBe("late task with [REDACTED]");
    expect(tasks[n - 1]?.title).toBe(`task ${n - 1} ${"é".repeat((n - 1) % 3)}`);
    expect(r.stdout).not.toContain(secret);
    // The collection ran: node:v8, which only it loads, was loaded.
    expect(report.loaded(r.stderr)).toContain("NativeModule v8");
  }, 120_000);
});
