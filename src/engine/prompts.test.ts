import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPromptLibrary } from "./prompts.js";

const dir = mkdtempSync(join(tmpdir(), "fixpoint-prompts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("prompt templates", () => {
  it("turns {{cache_break}} lines into breakpoints at the end of the text rendered before them", async () => {
    writeFileSync(join(dir, "t.md"), "Stable {{a}}.\n{{cache_break}}\nVolatile {{b}}.\n");
    const lib = createPromptLibrary(join(dir, "project"), dir);
    const out = await lib.renderPrompt("t", { a: "A", b: "B" });
    expect(out.text).toBe("Stable A.\nVolatile B.\n");
    expect(out.cacheBreaks).toEqual(["Stable A.\n".length]);
    expect(await lib.render("t", { a: "A", b: "B" })).toBe(out.text);
  });

  it("has no breakpoint in a template without the marker (a project override may omit it)", async () => {
    writeFileSync(join(dir, "plain.md"), "Only {{a}}.");
    const out = await createPromptLibrary(join(dir, "project"), dir).renderPrompt("plain", { a: "x" });
    expect(out).toEqual({ text: "Only x.", cacheBreaks: [] });
  });

  it("ships review templates that name neither the cycle nor the stage before their break", async () => {
    const lib = createPromptLibrary(join(dir, "project"));
    for (const name of ["review", "review-code", "review-security", "review-tests", "fix"]) {
      const vars = new Proxy({} as Record<string, string>, { get: (_t, k) => `<${String(k)}>` });
      const out = await lib.renderPrompt(name, vars);
      expect(out.cacheBreaks, name).toHaveLength(1);
      const shared = out.text.slice(0, out.cacheBreaks[0]);
      expect(shared, name).not.toMatch(/<cycle>|<stage_id>|<review_context>/);
      expect(out.text.slice(out.cacheBreaks[0]), name).toMatch(/<cycle>|<review_context>/);
    }
  });
});
