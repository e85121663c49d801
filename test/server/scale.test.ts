/**
 * SPEC §14's dashboard budgets on a real SQLite file: the morning report and the task list in
 * ≤ 300 ms with 10,000 tasks; a task page with 5,000 findings and its 10 MB transcript in ≤ 1 s.
 * Timed in-process (app.request), the median of three after one warm-up request.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Finding } from "../../src/domain/types.js";
import { finding } from "../store/samples.js";
import { dashboard, openHarness, type ServerHarness, task } from "./harness.js";

let h: ServerHarness;
beforeAll(async () => {
  h = await openHarness();
  const now = Date.now();
  const statuses = ["completed", "needs_human", "failed", "queued", "running"] as const;
  await h.store.transaction(async (tx) => {
    for (let i = 0; i < 10_000; i++) {
      const t = await tx.createTask(task(h, { title: `task number ${i}` }), now - (10_000 - i) * 1000);
      const status = statuses[i % statuses.length] ?? "queued";
      if (status !== "queued")
        await tx.updateTask(t.id, { status, reason: `reason ${i}` }, now - (10_000 - i) * 500);
    }
  });
  const findings: Finding[] = Array.from({ length: 5000 }, (_, i) =>
    finding("t-1", `F-${i + 1}`, {
      title: `finding ${i}`,
      lineStart: i + 1,
      lineEnd: i + 1,
      body: `**why** ${"x".repeat(200)}`,
    }),
  );
  await h.store.saveFindings("t-1", findings, [], now);
  mkdirSync(join(h.dir, "transcripts", "t-1"), { recursive: true });
  writeFileSync(
    join(h.dir, "transcripts", "t-1", "implement.txt"),
    "a line of agent output\n".repeat(460_000),
  );
}, 120_000);
afterAll(async () => {
  await h.cleanup();
});

async function medianMs(path: string): Promise<{ ms: number; body: string }> {
  const app = dashboard(h);
  let body = await (await app.request(path)).text();
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const res = await app.request(path);
    body = await res.text();
    expect(res.status).toBe(200);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { ms: times[1] ?? Number.POSITIVE_INFINITY, body };
}

describe("the dashboard at size", () => {
  it("renders the morning report in ≤ 300 ms with 10,000 tasks", async () => {
    const { ms, body } = await medianMs("/?since=all");
    expect(body).toMatch(/<strong>2000<\/strong> needs you/);
    expect(ms).toBeLessThanOrEqual(300);
  });

  it("renders the task list and its later pages in ≤ 300 ms with 10,000 tasks", async () => {
    expect((await medianMs("/tasks")).ms).toBeLessThanOrEqual(300);
    const { ms, body } = await medianMs("/tasks?status=failed&before=5000");
    expect(body).toContain("task number 4997");
    expect(ms).toBeLessThanOrEqual(300);
  });

  it("opens a task with 5,000 findings, and its 10 MB transcript a page at a time, in ≤ 1 s", async () => {
    const page = await medianMs("/tasks/t-1");
    expect(page.body).toContain("page 1 of 50");
    expect(page.ms).toBeLessThanOrEqual(1000);
    const transcript = await medianMs("/tasks/t-1/artifacts/implement.txt?offset=5000000");
    expect(transcript.body).toContain("a line of agent output");
    expect(transcript.body.length).toBeLessThan(1_000_000);
    expect(transcript.ms).toBeLessThanOrEqual(1000);
  });
});
