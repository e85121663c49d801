import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArtifactKind, StoredArtifact } from "../domain/store.js";
import type { ReviewOutput } from "../domain/types.js";
import {
  listReviewArtifacts,
  type ReviewSection,
  restoreArtifacts,
  writeReviewSections,
} from "./artifacts.js";

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

/** A store of `names` (text "text of <name>") that counts what it is asked for. */
function countingStore(names: string[]) {
  const asked: string[][] = [];
  return {
    asked,
    artifactNames: async (_taskId: string, _kind: ArtifactKind) => [...names],
    listArtifacts: async (taskId: string, kind?: ArtifactKind, only?: readonly string[]) => {
      asked.push([...(only ?? names)]);
      return (only ?? names)
        .filter((n) => names.includes(n))
        .map(
          (name): StoredArtifact => ({
            taskId,
            kind: kind ?? "transcript",
            name,
            text: `text of ${name}`,
            size: 0,
            truncated: false,
            createdAt: 0,
          }),
        );
    },
  };
}

describe("restoreArtifacts", () => {
  it("reads from the store only the text of what the folder lacks, a batch at a time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fixpoint-restore-"));
    dirs.push(dir);
    const names = Array.from({ length: 150 }, (_, i) => `r1-s${i}-c0-v1-a1.log`);
    writeFileSync(join(dir, names[3] as string), "kept");
    writeFileSync(join(dir, names[140] as string), "kept");
    const store = countingStore([...names, "../escape.log"]);

    await restoreArtifacts(store, dir, "t-1", "transcript");
    const missing = names.filter((_, i) => i !== 3 && i !== 140);
    expect(store.asked.flat()).toEqual(missing);
    for (const batch of store.asked) expect(batch.length).toBeLessThanOrEqual(64);
    expect(readdirSync(dir).sort()).toEqual([...names].sort());
    expect(readFileSync(join(dir, names[3] as string), "utf8")).toBe("kept");
    expect(readFileSync(join(dir, names[0] as string), "utf8")).toBe(`text of ${names[0]}`);

    // Everything on disk now: the names are read, no text.
    store.asked.length = 0;
    await restoreArtifacts(store, dir, "t-1", "transcript");
    expect(store.asked).toEqual([]);
  });

  it("writes every transcript into a folder not there yet, and looks up reviews by name in a shared one", async () => {
    const root = mkdtempSync(join(tmpdir(), "fixpoint-restore-"));
    dirs.push(root);
    const transcripts = join(root, "transcripts", "t-1");
    const store = countingStore(["r1-a.log", "r1-b.log"]);
    await restoreArtifacts(store, transcripts, "t-1", "transcript");
    expect(readdirSync(transcripts).sort()).toEqual(["r1-a.log", "r1-b.log"]);

    const reviews = join(root, "reviews");
    mkdirSync(reviews);
    writeFileSync(join(reviews, "t-1-r1-review-0.md"), "kept");
    writeFileSync(join(reviews, "t-2-r1-review-0.md"), "another task's");
    const reviewStore = countingStore(["t-1-r1-review-0.md", "t-1-r1-review-1.md"]);
    await restoreArtifacts(reviewStore, reviews, "t-1", "review");
    expect(reviewStore.asked.flat()).toEqual(["t-1-r1-review-1.md"]);
    expect(readFileSync(join(reviews, "t-1-r1-review-0.md"), "utf8")).toBe("kept");
  });
});

describe("listReviewArtifacts", () => {
  it("lists the stored names and older versions' files of one task, by run and cycle, without listing the shared folder", () => {
    const reviews = mkdtempSync(join(tmpdir(), "fixpoint-reviews-"));
    dirs.push(reviews);
    const files = [
      "t-1-r2-review-0.md",
      "t-1-r1-review-1.md",
      "t-1-r1-review-0.md",
      // Older versions': no run id, never stored; cycle 2 is missing, cycle 3 is still found.
      "t-1-review-0.md",
      "t-1-review-1.md",
      "t-1-review-3.md",
      // Another task's, and one of t-1's that no store names (a folder listing would show it).
      "t-10-r1-review-0.md",
      "t-1-r9-review-0.md",
    ];
    for (const f of files) writeFileSync(join(reviews, f), f);
    const stored = ["t-1-r1-review-0.md", "t-1-r1-review-1.md", "t-1-r2-review-0.md", "t-10-r1-review-0.md"];
    const listed = listReviewArtifacts(reviews, "t-1", stored);
    expect(listed.map((a) => [a.path.slice(reviews.length + 1), a.runId, a.cycle])).toEqual([
      ["t-1-review-0.md", null, 0],
      ["t-1-review-1.md", null, 1],
      ["t-1-review-3.md", null, 3],
      ["t-1-r1-review-0.md", 1, 0],
      ["t-1-r1-review-1.md", 1, 1],
      ["t-1-r2-review-0.md", 2, 0],
    ]);
    expect(listReviewArtifacts(join(reviews, "none"), "t-1", [])).toEqual([]);
  });
});
