import { describe, expect, it } from "vitest";
import type { TaskSummary } from "../../domain/types.js";
import { STATUS_JSON_PAGE as PAGE, taskJson, writeTaskJsonStream } from "./json.js";

function tasks(n: number): TaskSummary[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `t-${i + 1}`,
    seq: i + 1,
    type: "implement",
    title: `Task "${i}" — ünïcode \n and \\ escapes`,
    workflow: "implement-review",
    baseBranch: "main",
    branch: i % 2 ? `fixpoint/t-${i + 1}` : null,
    worktreePath: null,
    status: "queued",
    finalVerdict: null,
    reason: null,
    maxCycles: 3,
    cycle: 0,
    currentStage: null,
    priority: i % 3,
    parentId: null,
    createdAt: 1_700_000_000_000 + i,
    updatedAt: 1_700_000_000_000 + i,
    costUsd: i / 7,
    tokens: i,
  }));
}

describe("status --json rendering", () => {
  it("streams pages into one array identical to printing them all at once", async () => {
    for (const n of [0, 1, PAGE, PAGE * 2 + 3]) {
      const all = tasks(n);
      const asked: (number | undefined)[] = [];
      const chunks: string[] = [];
      const screened: string[] = [];
      await writeTaskJsonStream(
        (t, tokenFree) => {
          chunks.push(t);
          if (tokenFree) screened.push(t);
        },
        async (after) => {
          asked.push(after);
          const from = after === undefined ? 0 : all.findIndex((t) => t.seq === after) + 1;
          const page = all.slice(from, from + PAGE);
          return {
            json: page.map((t) => JSON.stringify(taskJson(t))).join(","),
            count: page.length,
            lastSeq: page.at(-1)?.seq ?? null,
            // Every other page screened by the store: the flag travels with that page's text only.
            tokenFree: asked.length % 2 === 1,
          };
        },
      );
      expect(chunks.join("")).toBe(`${JSON.stringify(all.map(taskJson))}\n`);
      const pages = Math.ceil(n / PAGE);
      expect(screened).toEqual(
        Array.from({ length: Math.ceil(pages / 2) }, (_, i) =>
          all
            .slice(2 * i * PAGE, (2 * i + 1) * PAGE)
            .map((t) => JSON.stringify(taskJson(t)))
            .join(","),
        ),
      );
      // One query per page, the last one possibly empty; each continues after the previous page.
      expect(asked.length).toBe(Math.floor(n / PAGE) + 1);
      if (n > PAGE) expect(asked[1]).toBe(PAGE);
    }
  });

  it("asks for the next page only once the previous one has drained", async () => {
    const all = tasks(PAGE * 2 + 1);
    const log: string[] = [];
    let release: () => void = () => undefined;
    const stream = writeTaskJsonStream(
      () => log.push("write"),
      async (after) => {
        log.push(`page after ${after}`);
        const from = after === undefined ? 0 : after;
        const page = all.slice(from, from + PAGE);
        return { json: "{}", count: page.length, lastSeq: page.at(-1)?.seq ?? null, tokenFree: false };
      },
      () => {
        log.push("wait");
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    // The first page is written, then the stream waits: no second query while the reader is behind.
    expect(log).toEqual(["write", "page after undefined", "write", "wait"]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.slice(4)).toEqual([`page after ${PAGE}`, "write", "write", "wait"]);
    release();
    await stream;
    expect(log.slice(8)).toEqual([`page after ${PAGE * 2}`, "write", "write", "write"]);
  });
});
