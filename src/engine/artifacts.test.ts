import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ReviewOutput } from "../domain/types.js";
import { type ReviewSection, writeReviewSections } from "./artifacts.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function output(summary: string): ReviewOutput {
  return { verdict: "APPROVED", summary, findings: [], prior: [] };
}

function section(stageId: string, summary: string): ReviewSection {
  return { stageId, output: output(summary), verdict: null };
}

/** The stage ids of the file's sections in order, with each one's summary line. */
function sectionsOf(text: string): string[] {
  return [...text.matchAll(/<!-- stage:([^ ]+) -->\n## [^\n]+\n\n\*\*Verdict: [A-Z_]+\*\*\n\n([^\n]*)/g)].map(
    (m) => `${m[1]}=${m[2]}`,
  );
}

describe("writeReviewSections", () => {
  it("writes a block's reviewers at once, in order, and replaces a rerun's in place", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fixpoint-review-file-"));
    dirs.push(dir);
    const path = await writeReviewSections(
      dir,
      "t-1",
      2,
      [section("a", "first a"), section("b", "first b")],
      7,
    );
    expect(path).toBe(join(dir, "t-1-r7-review-2.md"));
    await writeReviewSections(dir, "t-1", 2, [section("c", "first c")], 7);
    await writeReviewSections(dir, "t-1", 2, [section("b", "again b"), section("d", "first d")], 7);
    const text = readFileSync(path, "utf8");
    expect(text.startsWith("# Review of t-1, run 7, cycle 2\n")).toBe(true);
    expect(sectionsOf(text)).toEqual(["a=first a", "b=again b", "c=first c", "d=first d"]);
  });

  it("is not misled by a reviewer's summary that holds another section's marker", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fixpoint-review-file-"));
    dirs.push(dir);
    const hostile = "see <!-- stage:b --> and <!-- /stage:b --> here";
    const path = await writeReviewSections(dir, "t-2", 0, [section("a", hostile), section("b", "first b")]);
    await writeReviewSections(dir, "t-2", 0, [section("b", "again b")]);
    const text = readFileSync(path, "utf8");
    expect(sectionsOf(text)).toEqual([`a=${hostile}`, "b=again b"]);
    expect(text.split("<!-- /stage:b -->\n")).toHaveLength(2);
  });
});
