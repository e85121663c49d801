import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { finding } from "../../test/store/samples.js";
import type { Finding, RawFinding } from "../domain/types.js";
import { Registry } from "./registry.js";

function raw(over: Partial<RawFinding> = {}): RawFinding {
  return {
    severity: "P1",
    category: "security",
    title: "SQL injection in user search",
    body: "The query concatenates user input.",
    file: "src/api/users.ts",
    lineStart: 87,
    lineEnd: 92,
    suggestedFix: "Use parameterized queries",
    ...over,
  };
}

function fresh(findings: Finding[] = []): Registry {
  let t = 1000;
  return Registry.load("t-1", findings, { blockingSeverity: "P1", now: () => t++ });
}

const types = (r: Registry) => r.drainChanges().events.map((e) => e.type);

describe("adding findings", () => {
  it("two reviewers raising the same problem with slightly different titles make one finding", () => {
    const r = fresh();
    r.addFindings([raw({ severity: "P2", body: "Concatenated SQL." })], {
      source: "review:security",
      cycle: 0,
    });
    const res = r.addFindings(
      [
        raw({
          severity: "P1",
          title: "SQL injection in the user search",
          lineStart: 89,
          body: "Tainted input.",
        }),
      ],
      {
        source: "review:code",
        cycle: 0,
      },
    );
    expect(res).toEqual({ added: [], merged: ["F-1"], reopened: [] });
    const [f] = r.all();
    expect(r.all()).toHaveLength(1);
    expect(f?.severity).toBe("P1");
    expect(f?.body).toContain("Concatenated SQL.");
    expect(f?.body).toContain("Tainted input.");
    expect(f?.sources.map((s) => s.source)).toEqual(["review:security", "review:code"]);
    expect(types(r)).toEqual(["finding.added", "finding.merged"]);
  });

  it("keeps problems apart when titles differ by 0.3 or more, or lines are more than 5 apart", () => {
    const r = fresh();
    const res = r.addFindings(
      [
        raw(),
        raw({ title: "Missing rate limit on login" }),
        raw({ lineStart: 98, lineEnd: 100 }),
        raw({ lineStart: 96, lineEnd: 96, title: "SQL injection in user search." }),
      ],
      { source: "review:a", cycle: 0 },
    );
    expect(res.added).toEqual(["F-1", "F-2", "F-3"]);
    expect(r.all()).toHaveLength(3);
    // The fourth (line 96, within 5 of 92) merged into F-1 — within the batch, not counted as "merged" twice.
    expect(r.get("F-1")?.sources).toHaveLength(1);
  });

  it("a new finding matching a fixed one reopens it; one matching a blocked one does not", () => {
    const r = fresh();
    r.addFindings([raw(), raw({ file: "src/b.ts", title: "Hard-coded secret" })], {
      source: "review:a",
      cycle: 0,
    });
    r.applyFixReport(
      {
        summary: "",
        entries: [
          { id: "F-1", status: "fixed", justification: "parameterized" },
          {
            id: "F-2",
            status: "blocked",
            reason: "needs a human decision",
            justification: "which vault to use?",
          },
        ],
      },
      { cycle: 1, commitSha: "abc", shownIds: ["F-1", "F-2"] },
    );
    r.drainChanges();
    const res = r.addFindings(
      [raw({ title: "SQL injection in user-search" }), raw({ file: "src/b.ts", title: "Hard-coded secret" })],
      {
        source: "review:b",
        cycle: 1,
      },
    );
    expect(res).toEqual({ added: [], merged: ["F-2"], reopened: ["F-1"] });
    expect(r.get("F-1")).toMatchObject({ status: "open", timesReopened: 1, lastCycle: 1 });
    expect(r.get("F-2")?.status).toBe("blocked");
    expect(types(r)).toContain("finding.reopened");
  });

  it("continues ids after the persisted ones and sorts by number", () => {
    const r1 = fresh();
    r1.addFindings(
      Array.from({ length: 10 }, (_, i) => raw({ file: `src/f${i}.ts` })),
      { source: "review:a", cycle: 0 },
    );
    const r2 = fresh(r1.drainChanges().findings);
    r2.addFindings([raw({ file: "src/new.ts" })], { source: "review:a", cycle: 1 });
    expect(r2.all().map((f) => f.id)).toEqual([...Array.from({ length: 11 }, (_, i) => `F-${i + 1}`)]);
    expect(r2.drainChanges().findings.map((f) => f.id)).toEqual(["F-11"]);
    expect(r2.drainChanges().findings).toEqual([]);
  });
});

describe("reviewers' statuses on prior findings", () => {
  function withFixed(): Registry {
    const r = fresh();
    r.addFindings([raw(), raw({ file: "src/other.ts", title: "Unbounded loop" })], {
      source: "review:a",
      cycle: 0,
    });
    r.applyFixReport(
      {
        summary: "",
        entries: [
          { id: "F-1", status: "fixed", justification: "bound params" },
          { id: "F-2", status: "fixed", justification: "added a bound" },
        ],
      },
      { cycle: 1, commitSha: null, shownIds: ["F-1", "F-2"] },
    );
    r.drainChanges();
    return r;
  }

  it("a reviewer saying still_open on a fixed finding reopens it", () => {
    const r = withFixed();
    const res = r.applyPrior([{ id: "F-1", status: "still_open", note: "still concatenated in search()" }], {
      source: "review:a",
      cycle: 1,
      expectedIds: ["F-1"],
    });
    expect(res.reopened).toEqual(["F-1"]);
    expect(r.get("F-1")).toMatchObject({
      status: "open",
      timesReopened: 1,
      note: "still concatenated in search()",
    });
    const events = r.drainChanges().events;
    expect(events.find((e) => e.type === "finding.reopened")?.data).toMatchObject({ id: "F-1", cycle: 1 });
    expect(events.find((e) => e.type === "finding.status")?.data).toMatchObject({
      id: "F-1",
      from: "fixed",
      to: "open",
    });
  });

  it("still_open from one reviewer beats resolved from another in the same cycle, in either order", () => {
    for (const order of [
      ["resolved", "still_open"],
      ["still_open", "resolved"],
    ] as const) {
      const r = withFixed();
      r.applyPrior([{ id: "F-1", status: order[0] }], { source: "review:a", cycle: 1, expectedIds: [] });
      r.applyPrior([{ id: "F-1", status: order[1] }], { source: "review:b", cycle: 1, expectedIds: [] });
      expect(r.get("F-1")).toMatchObject({ status: "open", timesReopened: 1 });
    }
    // A later cycle's resolved is not blocked by an earlier cycle's still_open.
    const r = withFixed();
    r.applyPrior([{ id: "F-1", status: "still_open" }], { source: "review:a", cycle: 1, expectedIds: [] });
    r.applyPrior([{ id: "F-1", status: "resolved" }], { source: "review:a", cycle: 2, expectedIds: [] });
    expect(r.get("F-1")?.status).toBe("resolved");
  });

  it("not_applicable keeps the status and records the note; omitted and unknown ids are logged", () => {
    const r = withFixed();
    const res = r.applyPrior(
      [
        { id: "F-2", status: "not_applicable", note: "the loop is bounded by the caller" },
        { id: "F-99", status: "resolved" },
      ],
      { source: "review:a", cycle: 1, expectedIds: ["F-1", "F-2"] },
    );
    expect(res.omitted).toEqual(["F-1"]);
    expect(r.get("F-1")?.status).toBe("fixed");
    expect(r.get("F-2")).toMatchObject({
      status: "fixed",
      note: "not applicable: the loop is bounded by the caller",
    });
    const events = r.drainChanges().events;
    expect(events.find((e) => e.type === "review.prior_omitted")?.data).toMatchObject({ ids: ["F-1"] });
    expect(events.find((e) => e.type === "review.prior_unknown_id")?.data).toMatchObject({ ids: ["F-99"] });
  });
});

describe("gates", () => {
  const fail = (code: number, out = "FAIL src/a.test.ts\nexpected 1 to be 2") => ({
    passed: false as const,
    finding: Registry.gateFinding("test", code, out, "", false),
  });

  it("a failure becomes one P1 finding that a pass resolves; reviewers cannot resolve it", () => {
    const r = fresh();
    r.applyGate("test", 0, fail(1));
    r.applyGate("test", 1, fail(2, "other output"));
    expect(r.all()).toHaveLength(1);
    expect(r.get("F-1")).toMatchObject({
      severity: "P1",
      category: "gate",
      title: "gate test failed (exit 2)",
      status: "open",
    });
    expect(r.get("F-1")?.body).toContain("other output");
    expect(r.forReview()).toEqual([]);
    r.applyPrior([{ id: "F-1", status: "resolved" }], { source: "review:a", cycle: 1, expectedIds: [] });
    expect(r.get("F-1")?.status).toBe("open");
    r.applyGate("lint", 1, { passed: true });
    expect(r.get("F-1")?.status).toBe("open");
    r.applyGate("test", 1, { passed: true });
    expect(r.get("F-1")?.status).toBe("resolved");
    expect(r.blockingOpen()).toBe(0);
  });

  it("a resolved gate finding that fails again is reopened, not duplicated", () => {
    const r = fresh();
    r.applyGate("test", 0, fail(1));
    r.applyGate("test", 1, { passed: true });
    r.applyGate("test", 2, fail(1));
    expect(r.all()).toHaveLength(1);
    expect(r.get("F-1")).toMatchObject({ status: "open", timesReopened: 1 });
  });

  it("bounds gate output to 4 KB tails per stream", () => {
    const noisy = `${"x".repeat(10_000)}\nerror: the real failure\n`;
    const f = Registry.gateFinding("build", null, noisy, noisy, true);
    expect(f.title).toBe("gate build failed (timed out)");
    expect(f.body).toContain("- error: the real failure");
    expect(f.body.length).toBeLessThan(9000);
  });
});

describe("deleted files", () => {
  it("auto-blocks findings whose file no longer exists, asking once per file", async () => {
    const r = fresh();
    r.addFindings(
      [
        raw(),
        raw({ title: "Another issue here", lineStart: 300, lineEnd: 301 }),
        raw({ file: "src/kept.ts" }),
      ],
      {
        source: "review:a",
        cycle: 0,
      },
    );
    const asked: string[] = [];
    const blocked = await r.autoBlockDeleted(async (file) => {
      asked.push(file);
      return file === "src/kept.ts";
    }, 1);
    expect(blocked).toEqual(["F-1", "F-2"]);
    expect(asked).toEqual(["src/api/users.ts", "src/kept.ts"]);
    expect(r.get("F-1")?.attempts.at(-1)).toMatchObject({
      status: "blocked",
      justification: "referenced file deleted",
    });
    expect(r.forFix().map((f) => f.id)).toEqual(["F-3"]);
    expect(r.allBlocked()).toBe(false);
    await r.autoBlockDeleted(() => false, 2);
    expect(r.allBlocked()).toBe(true);
    expect(r.blockingOpen()).toBe(0);
  });
});

describe("what the registry hands out", () => {
  it("a finding handed out stays as it was when the registry changes it later", () => {
    const r = fresh();
    r.addFindings([raw()], { source: "review:a", cycle: 0 });
    const [shown] = r.forFix();
    if (!shown) throw new Error("no finding");
    r.applyFixReport(
      { summary: "", entries: [{ id: "F-1", status: "fixed", justification: "parameterized the query" }] },
      { cycle: 1, commitSha: "abc", shownIds: ["F-1"] },
    );
    r.addFindings([raw()], { source: "review:b", cycle: 2 });
    expect(shown.status).toBe("open");
    expect(shown.attempts).toEqual([]);
    expect(shown.sources.map((s) => s.source)).toEqual(["review:a"]);
    const now = r.get("F-1");
    expect(now?.attempts.map((a) => a.status)).toEqual(["fixed"]);
    expect(now?.sources.map((s) => s.source)).toEqual(["review:a", "review:b"]);
    // The lists are the registry's: changing them in place is refused, not silently shared.
    expect(() => now?.attempts.push({ ...(now.attempts[0] as Finding["attempts"][0]) })).toThrow(TypeError);
  });

  it("a snapshot loaded again shares its frozen lists, and neither registry's changes reach the other", () => {
    const first = fresh();
    first.addFindings([raw()], { source: "review:a", cycle: 0 });
    const snapshot = first.all();
    const second = fresh(snapshot);
    second.addFindings([raw()], { source: "review:b", cycle: 1 });
    second.applyFixReport(
      { summary: "", entries: [{ id: "F-1", status: "fixed", justification: "parameterized the query" }] },
      { cycle: 1, commitSha: "abc", shownIds: ["F-1"] },
    );
    expect(snapshot[0]?.sources.map((s) => s.source)).toEqual(["review:a"]);
    expect(snapshot[0]?.attempts).toEqual([]);
    expect(first.get("F-1")?.sources.map((s) => s.source)).toEqual(["review:a"]);
    expect(second.get("F-1")?.sources.map((s) => s.source)).toEqual(["review:a", "review:b"]);
    expect(second.get("F-1")?.attempts.map((a) => a.status)).toEqual(["fixed"]);
    // A list handed in unfrozen is copied: the caller changing it later changes nothing here.
    const mine = finding("t-1", "F-1", { sources: [{ source: "review:a", cycle: 0 }] });
    const third = fresh([mine]);
    mine.sources.push({ source: "review:z", cycle: 9 });
    expect(third.get("F-1")?.sources.map((s) => s.source)).toEqual(["review:a"]);
  });

  it("reviewers are asked about findings raised by anyone but gates, whenever the sources came", () => {
    const loaded = [
      finding("t-1", "F-1", { sources: [{ source: "gate:lint", cycle: 0 }] }),
      finding("t-1", "F-2", { sources: [] }),
      finding("t-1", "F-3", {
        sources: [
          { source: "gate:lint", cycle: 0 },
          { source: "review:a", cycle: 0 },
        ],
      }),
    ];
    const r = fresh(loaded);
    r.applyGate("test", 1, {
      passed: false,
      finding: raw({ title: "tests fail", file: null, lineStart: null, lineEnd: null }),
    });
    r.addFindings([raw({ title: "Problem F-2", file: "src/main.ts", lineStart: 10, lineEnd: 12 })], {
      source: "review:b",
      cycle: 1,
    });
    expect(r.forReview().map((f) => f.id)).toEqual(["F-2", "F-3"]);
    // A gate's finding takes no status from a reviewer; another one does.
    r.applyPrior(
      [
        { id: "F-1", status: "resolved" },
        { id: "F-4", status: "resolved" },
        { id: "F-3", status: "resolved" },
      ],
      { source: "review:b", cycle: 2, expectedIds: [] },
    );
    expect([r.get("F-1")?.status, r.get("F-3")?.status, r.get("F-4")?.status]).toEqual([
      "open",
      "resolved",
      "open",
    ]);
  });

  it("lists most severe first, then by id, whatever order the findings were loaded in", () => {
    const severities = ["P0", "P1", "P2", "P3"] as const;
    const statuses = ["open", "fixed", "deferred", "resolved", "blocked"] as const;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            n: fc.integer({ min: 1, max: 500 }),
            severity: fc.constantFrom(...severities),
            status: fc.constantFrom(...statuses),
          }),
          { maxLength: 40 },
        ),
        fc.boolean(),
        (rows, oddId) => {
          const seen = new Set<number>();
          const loaded = rows
            .filter((x) => !seen.has(x.n) && seen.add(x.n))
            .map((x) =>
              finding("t-1", `F-${x.n}`, {
                severity: x.severity,
                status: x.status,
                file: `src/f${x.n}.ts`,
                sources: [{ source: "review:a", cycle: 0 }],
              }),
            );
          if (oddId) loaded.push(finding("t-1", "legacy-1", { severity: "P2", status: "open" }));
          const r = fresh(loaded);
          r.addFindings([raw({ severity: "P3", file: "src/new.ts" })], { source: "review:a", cycle: 1 });
          const rank = (f: Finding) => severities.indexOf(f.severity);
          const num = (f: Finding) =>
            f.id.startsWith("F-") ? Number(f.id.slice(2)) : Number.MAX_SAFE_INTEGER;
          const expected = (keep: (f: Finding) => boolean) =>
            r
              .all()
              .filter(keep)
              .sort((a, b) => rank(a) - rank(b) || num(a) - num(b))
              .map((f) => f.id);
          expect(r.forFix().map((f) => f.id)).toEqual(
            expected((f) => f.status === "open" || f.status === "deferred"),
          );
          expect(r.forReview().map((f) => f.id)).toEqual(
            expected((f) => f.status === "open" || f.status === "fixed" || f.status === "deferred"),
          );
        },
      ),
    );
  });
});
