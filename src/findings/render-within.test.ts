import { describe, expect, it } from "vitest";
import { finding as sampleFinding } from "../../test/store/samples.js";
import type { Finding, FixAttempt, Severity } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { priorityOrder } from "./ranked.js";
import { renderFindingsWithin, renderPriorWithin } from "./render.js";
import { byteSize, resolvedLine } from "./select.js";

function finding(n: number, over: Partial<Finding> = {}): Finding {
  return sampleFinding("t-9", `F-${n}`, {
    fingerprint: "",
    severity: "P2",
    category: "correctness",
    title: `Problem number ${n}`,
    body: `What is wrong with thing ${n}, explained at some length. `.repeat(6),
    file: `src/m${n % 40}.ts`,
    lineStart: n,
    lineEnd: n + 1,
    sources: [{ source: "review:other", cycle: 0 }],
    createdAt: 0,
    updatedAt: 0,
    ...over,
  });
}

const opts = { blockingSeverity: "P1" as Severity, taskId: "t-9", budgetKey: "defaults prompt-budget" };

describe("priorityOrder", () => {
  it("puts blocking findings first by severity, then this reviewer's, then the rest", () => {
    const fs = [
      finding(1, { severity: "P3" }),
      finding(2, { severity: "P2", sources: [{ source: "review:sec", cycle: 0 }] }),
      finding(3, { severity: "P1" }),
      finding(4, { severity: "P0" }),
      finding(5, { severity: "P2" }),
      finding(6, { severity: "P3", sources: [{ source: "review:sec", cycle: 1 }] }),
    ];
    expect(priorityOrder(fs, "P1", "review:sec").map((f) => f.id)).toEqual([
      "F-4",
      "F-3",
      "F-2",
      "F-6",
      "F-5",
      "F-1",
    ]);
  });
});

describe("resolvedLine", () => {
  it("collapses consecutive ids into ranges and caps how many ranges it names", () => {
    const ids = ["F-1", "F-2", "F-3", "F-5", "F-7", "F-8"];
    expect(resolvedLine(ids, "t-9")).toBe(
      "Already resolved (not shown): 6 findings (F-1–F-3, F-5, F-7–F-8). `fixpoint findings t-9` shows them.",
    );
    const scattered = Array.from({ length: 5000 }, (_, i) => `F-${i * 2 + 1}`);
    const line = resolvedLine(scattered, "t-9");
    expect(line).toContain("5000 findings");
    expect(line).toContain("+4976 more ranges");
    expect(byteSize(line)).toBeLessThan(600);
  });
});

describe("renderFindingsWithin", () => {
  it("stays within the byte budget, keeps blocking findings and names what it left out", () => {
    const fs = Array.from({ length: 3000 }, (_, i) =>
      finding(i + 1, { severity: i % 100 === 0 ? "P0" : "P2" }),
    );
    const r = renderFindingsWithin(16 * 1024, fs, opts);
    expect(byteSize(r.text)).toBeLessThanOrEqual(16 * 1024);
    for (let i = 0; i < 3000; i += 100) expect(r.text).toContain(`#### F-${i + 1} · P0`);
    expect(r.omitted.length).toBeGreaterThan(2000);
    expect(r.text).toMatch(/Left out to fit the prompt budget: \d+ P2 findings \(F-\d+, .*, \+\d+ more\)/);
    expect(r.text).toContain("`fixpoint findings t-9` lists them all");
    const shownIds = [...r.text.matchAll(/^#### (F-\d+) ·/gm)].map((m) => m[1]);
    expect(shownIds.length + r.omitted.length).toBe(3000);
  });

  it("is deterministic: the same registry in another order gives the same text", () => {
    const fs = Array.from({ length: 500 }, (_, i) =>
      finding(i + 1, { severity: (["P0", "P1", "P2", "P3"] as const)[i % 4] }),
    );
    const a = renderFindingsWithin(20_000, fs, opts);
    const b = renderFindingsWithin(20_000, [...fs].reverse(), opts);
    expect(b.text).toBe(a.text);
    expect(b.omitted).toEqual(a.omitted);
  });

  it("keeps the fix section at cycle 10 within 1.2x cycle 2 with thousands of resolved findings", () => {
    const attempts = (cycles: number): FixAttempt[] =>
      Array.from({ length: cycles }, (_, c) => ({
        cycle: c + 1,
        status: "deferred" as const,
        justification: `needs the schema change from ticket ${c}`,
        commitSha: null,
        at: c,
      }));
    const open = (cycles: number) =>
      Array.from({ length: 40 }, (_, i) => finding(6000 + i, { attempts: attempts(cycles) }));
    const resolvedAt = (n: number) => Array.from({ length: n }, (_, i) => `F-${i * 3 + 1}`);
    const two = renderFindingsWithin(64 * 1024, open(2), { ...opts, resolvedIds: resolvedAt(10) });
    const ten = renderFindingsWithin(64 * 1024, open(10), { ...opts, resolvedIds: resolvedAt(5000) });
    expect(ten.text).toContain("Already resolved (not shown): 5000 findings");
    expect(byteSize(ten.text)).toBeLessThanOrEqual(byteSize(two.text) * 1.2);
  });

  it("refuses a budget smaller than one finding, naming the key that raises it", () => {
    let caught: unknown;
    try {
      renderFindingsWithin(300, [finding(1, { severity: "P0" })], opts);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(FixpointError);
    expect((caught as FixpointError).code).toBe("config");
    expect((caught as FixpointError).message).toMatch(
      /less than one finding needs \(F-1: about \d+ bytes.*raise `defaults prompt-budget`/,
    );
  });
});

describe("renderPriorWithin", () => {
  it("lists the reviewer's own findings right after the blocking ones and stays within budget", () => {
    const fs = Array.from({ length: 2000 }, (_, i) =>
      finding(i + 1, {
        severity: i < 5 ? "P1" : "P3",
        sources: [{ source: i % 100 === 7 ? "review:sec" : "review:other", cycle: 0 }],
      }),
    );
    const r = renderPriorWithin(8 * 1024, fs, { ...opts, raisedBy: "review:sec", resolvedIds: ["F-9000"] });
    expect(byteSize(r.text)).toBeLessThanOrEqual(8 * 1024);
    expect(r.shown.slice(0, 5)).toEqual(["F-1", "F-2", "F-3", "F-4", "F-5"]);
    expect(r.shown.slice(5, 8)).toEqual(["F-8", "F-108", "F-208"]);
    expect(r.text).toMatch(/Not listed, to fit the prompt budget: \d+ P3 findings/);
    expect(r.text).toContain("Already resolved (not shown): 1 finding (F-9000)");
    for (const id of r.shown) expect(r.text).toContain(`${id} | `);
  });

  it("refuses a budget too small for one row", () => {
    expect(() =>
      renderPriorWithin(100, [finding(1)], { ...opts, budgetKey: 'agent "reviewer" prompt-budget' }),
    ).toThrow(/raise `agent "reviewer" prompt-budget`/);
  });
});
