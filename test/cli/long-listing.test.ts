import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { STATUS_JSON_PAGE } from "../../src/cli/render/json.js";
import { statusLine } from "../../src/cli/render/status.js";
import { openStore } from "../../src/store/open.js";
import { redactSecrets } from "../../src/util/redact.js";
import { CLI, demoProject, moduleReport, runCli } from "../helpers/cli.js";
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

  it("prints the table's pages as statusLine would: stored lines, formatted pages, widening ids, redaction", async () => {
    const { repo, env } = demoProject("long-table-");
    const n = STATUS_JSON_PAGE * 3 + 17;
    const secret = "deploy-value-8815-kept-in-env";
    // Page 1 holds ids of 3 to 6 characters (padded in the database); page 2 a title outside the
    // Basic Multilingual Plane and page 3 a secret value past the title column (both formatted by
    // the CLI); page 4 is short.
    await fillTasks(repo, n, (i) =>
      i === 1500
        ? "emoji 🙂 task"
        : i === 2500
          ? `late task with ${secret}`
          : `task ${i} ${"é".repeat(i % 3)}`,
    );
    const childEnv = { ...env, DEPLOY_TOKEN: secret };
    const r = runCli(["status"], { cwd: repo, env: childEnv });
    expect(r.code, r.stderr).toBe(0);
    const store = await openStore("sqlite", repo);
    let expected = "";
    try {
      let width = 0;
      for (let after: number | undefined; ; ) {
        const page = await store.listTaskSummaries({
          excludeStatuses: ["cancelled"],
          limit: STATUS_JSON_PAGE,
          ...(after === undefined ? {} : { afterSeq: after }),
        });
        for (const t of page) width = Math.max(width, t.id.length);
        for (const t of page) expected += `${statusLine(t, width, childEnv)}\n`;
        if (page.length < STATUS_JSON_PAGE) break;
        after = page.at(-1)?.seq;
      }
    } finally {
      await store.close();
    }
    const table = r.stdout.slice(0, r.stdout.indexOf("\n\n") + 1);
    expect(table).toBe(redactSecrets(expected, childEnv));
    expect(table.split("\n")).toHaveLength(n + 1);
    expect(table).toContain("  · t-1     implement  task 0 ");
    expect(table).toContain("  · t-1000  implement  task 999 ");
    expect(table).toContain("late task with [REDACTED]");
    expect(r.stdout).not.toContain(secret);
    expect(r.stdout).toContain(`${n.toLocaleString("en")} tasks: ${n.toLocaleString("en")} queued`);
  }, 120_000);
});
