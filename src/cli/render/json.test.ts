import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FINAL_VERDICTS, TASK_STATUSES, TASK_TYPES, type TaskSummary } from "../../domain/types.js";
import { STATUS_PAGE, taskJson, taskJsonText, writeTaskJsonStream } from "./json.js";

const text = fc.string({ unit: "binary" });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const when = fc.integer({ min: 0, max: 253402300799999 });

const summary: fc.Arbitrary<TaskSummary> = fc.record({
  id: text,
  seq: fc.nat(),
  type: fc.constantFrom(...TASK_TYPES),
  title: text,
  workflow: text,
  baseBranch: text,
  branch: maybe(text),
  worktreePath: maybe(text),
  status: fc.constantFrom(...TASK_STATUSES),
  finalVerdict: maybe(fc.constantFrom(...FINAL_VERDICTS)),
  reason: maybe(text),
  maxCycles: fc.nat(),
  cycle: fc.nat(),
  currentStage: maybe(text),
  priority: fc.integer(),
  parentId: maybe(text),
  createdAt: when,
  updatedAt: when,
  costUsd: fc.double({ min: 0, max: 1e6, noNaN: true }),
  tokens: fc.nat(),
});

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
  it("property: the hand-written task JSON is byte for byte JSON.stringify(taskJson(t))", () => {
    fc.assert(
      fc.property(summary, (t) => {
        expect(taskJsonText(t)).toBe(JSON.stringify(taskJson(t)));
      }),
      { numRuns: 500 },
    );
  });

  it("streams pages into one array identical to printing them all at once", async () => {
    for (const n of [0, 1, STATUS_PAGE, STATUS_PAGE * 2 + 3]) {
      const all = tasks(n);
      const asked: (number | undefined)[] = [];
      const chunks: string[] = [];
      await writeTaskJsonStream(
        (t) => chunks.push(t),
        async (after) => {
          asked.push(after);
          const from = after === undefined ? 0 : all.findIndex((t) => t.seq === after) + 1;
          return all.slice(from, from + STATUS_PAGE);
        },
      );
      expect(chunks.join("")).toBe(`${JSON.stringify(all.map(taskJson))}\n`);
      // One query per page, the last one possibly empty; each continues after the previous page.
      expect(asked.length).toBe(Math.floor(n / STATUS_PAGE) + 1);
      if (n > STATUS_PAGE) expect(asked[1]).toBe(STATUS_PAGE);
    }
  });
});
