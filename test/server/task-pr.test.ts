/** The task page shows its pull request's state (open, merged, closed) from the store alone. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dashboard, openHarness, type ServerHarness, task } from "./harness.js";

let h: ServerHarness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.cleanup();
});

describe("task page: pull request", () => {
  it("links the PR with its state, and never renders a non-web address as a link", async () => {
    const t = await h.store.createTask(task(h, { title: "with a PR" }), 1);
    await h.store.updateTask(t.id, { meta: { prNumber: 12 } }, 2);
    const app = dashboard(h);
    const page = async () => (await app.request(`/tasks/${t.id}`)).text();
    expect(await page()).toContain("<dt>pull request</dt><dd>#12</dd>");
    await h.store.appendEvents(
      [
        {
          taskId: t.id,
          runId: null,
          type: "github.pr_opened",
          data: { pr: 12, url: "https://github.com/o/r/pull/12", draft: false },
        },
      ],
      1_700_000_000_000,
    );
    expect(await page()).toMatch(
      /<a href="https:\/\/github.com\/o\/r\/pull\/12" rel="noreferrer">#12<\/a> <span class="badge pr-open">open<\/span>/,
    );
    const run = await h.store.createRun(t.id, "start", {}, 3);
    await h.store.commitStage({
      taskId: t.id,
      runId: run.id,
      stage: {
        runId: run.id,
        taskId: t.id,
        stageId: "ingest",
        kind: "github",
        visit: 1,
        cycle: 0,
        outcome: "skipped",
        failureClass: null,
        failureReason: null,
        verdict: null,
        startedAt: 1_700_000_100_000,
        endedAt: 1_700_000_100_500,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        costUsd: 0,
        headBefore: null,
        headAfter: null,
        sessionId: null,
        summary: "pull request #12 was merged; nothing more to do for it",
        attempts: 1,
      },
      checkpoint: null,
      findings: [],
      events: [],
      task: {},
      now: 1_700_000_100_500,
    });
    expect(await page()).toContain('<span class="badge pr-merged">merged</span>');

    const evil = await h.store.createTask(task(h, { title: "evil url" }), 1);
    await h.store.appendEvents(
      [
        {
          taskId: evil.id,
          runId: null,
          type: "github.pr_opened",
          data: { pr: 3, url: "javascript:alert(1)" },
        },
      ],
      5,
    );
    const evilPage = await (await app.request(`/tasks/${evil.id}`)).text();
    expect(evilPage).toContain("<dt>pull request</dt><dd>#3 <span");
    expect(evilPage).not.toContain(`href="javascript:`);
  });
});
