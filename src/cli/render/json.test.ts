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

const text = (page: string | Uint8Array) =>
  typeof page === "string" ? page : Buffer.from(page).toString("utf8");
const bytes = (s: string) => Buffer.from(s, "utf8");

describe("status --json rendering", () => {
  it("streams pages into one array identical to printing them all at once", async () => {
    for (const n of [0, 1, PAGE, PAGE * 2 + 3]) {
      const all = tasks(n);
      const asked: (number | undefined)[] = [];
      const chunks: string[] = [];
      const screened: string[] = [];
      await writeTaskJsonStream(
        (pieces, tokenFree) => {
          for (const piece of pieces) {
            chunks.push(text(piece));
            if (tokenFree && typeof piece !== "string") screened.push(text(piece));
          }
        },
        async (after) => {
          asked.push(after);
          const from = after === undefined ? 0 : all.findIndex((t) => t.seq === after) + 1;
          const page = all.slice(from, from + PAGE);
          return {
            json: bytes(page.map((t) => JSON.stringify(taskJson(t))).join(",")),
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

  it("reads the next page while the previous one is written, and writes it only after", async () => {
    const all = tasks(PAGE * 2 + 1);
    const log: string[] = [];
    const finish: (() => void)[] = [];
    const stream = writeTaskJsonStream(
      (pieces) => {
        log.push(`write ${pieces.map(text).join("")}`);
        return new Promise<void>((resolve) => finish.push(resolve));
      },
      async (after) => {
        log.push(`page after ${after}`);
        const from = after === undefined ? 0 : after;
        const page = all.slice(from, from + PAGE);
        return {
          json: bytes(`p${from}`),
          count: page.length,
          lastSeq: page.at(-1)?.seq ?? null,
          tokenFree: false,
        };
      },
    );
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const done = async () => {
      finish.shift()?.();
      await settle();
    };
    await settle();
    // "[" is being written while the first page is read; the page waits for it.
    expect(log).toEqual(["write [", "page after undefined"]);
    await done();
    // The first page is written while the second is read, and nothing more until it is out.
    expect(log.slice(2)).toEqual(["write p0", `page after ${PAGE}`]);
    await done();
    // Each later page goes out with the comma before it, in one write.
    expect(log.slice(4)).toEqual([`write ,p${PAGE}`, `page after ${PAGE * 2}`]);
    await done();
    expect(log.slice(6)).toEqual([`write ,p${PAGE * 2}`]);
    await done();
    expect(log.slice(7)).toEqual(["write ]\n"]);
    await done();
    await stream;
  });
});
