import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffPaths, stableFirst } from "./diff-order.js";

const section = (path: string, body: string) =>
  `diff --git a/${path} b/${path}\nindex 1..2 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n${body}\n`;

describe("stableFirst", () => {
  it("moves the files changed since the last review to the end, keeping git's order otherwise", () => {
    const diff = ["a.ts", "b.ts", "c.ts", "d.ts"].map((p) => section(p, `+${p}`)).join("");
    const out = stableFirst(diff, new Set(["b.ts", "d.ts"]));
    expect([...out.matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1])).toEqual([
      "a.ts",
      "c.ts",
      "b.ts",
      "d.ts",
    ]);
  });

  it("treats a rename as touching both of its paths", () => {
    const renamed =
      "diff --git a/old.ts b/new.ts\nsimilarity index 90%\nrename from old.ts\nrename to new.ts\n";
    const diff = renamed + section("z.ts", "+z");
    expect(diffPaths(renamed)).toEqual(new Set(["old.ts", "new.ts"]));
    expect(stableFirst(diff, new Set(["old.ts"])).startsWith("diff --git a/z.ts")).toBe(true);
  });

  it("is a reordering of whole file sections, unchanged files first (property)", () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}\.ts$/), { minLength: 0, maxLength: 8 });
    fc.assert(
      fc.property(names, fc.array(fc.boolean(), { maxLength: 8 }), fc.string(), (paths, flags, body) => {
        const clean = body.replace(/^diff --git /gm, "");
        const sections = paths.map((p) => section(p, `+${clean}`));
        const changed = new Set(paths.filter((_, i) => flags[i]));
        const out = stableFirst(sections.join(""), changed);
        // Same bytes, in some order of whole sections.
        expect([...out].sort().join("")).toBe([...sections.join("")].sort().join(""));
        const order = paths.map((p) => ({ p, at: out.indexOf(`diff --git a/${p} `) }));
        for (const s of order) expect(s.at).toBeGreaterThanOrEqual(0);
        const firstChanged = Math.min(...order.filter((s) => changed.has(s.p)).map((s) => s.at));
        for (const s of order.filter((s) => !changed.has(s.p))) expect(s.at).toBeLessThan(firstChanged);
      }),
    );
  });
});
