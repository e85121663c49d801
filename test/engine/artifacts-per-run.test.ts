import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listReviewArtifacts } from "../../src/engine/artifacts.js";
import {
  answerAll,
  byStage,
  finding,
  fixEverything,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/** A task that takes one fix cycle: the first review finds `title()`, the second approves. */
const oneFixCycle = (title: () => string) =>
  harness({
    agents: {
      implementer: implementFeature(),
      reviewer: byStage({
        review_code: (req) =>
          req.cycle === 0
            ? reviewReply("CHANGES_REQUESTED", [finding("P1", title())])
            : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "verified")),
      }),
      fixer: fixEverything(),
    },
  });

describe("a second run never overwrites the first run's artifacts or transcripts", () => {
  it("review artifacts and transcripts carry the run id; the first run's files stay as they were", async () => {
    let round = 0;
    const h = await oneFixCycle(() => `round ${round}: greet() crashes`);
    const t = await h.addTask();
    await h.runAll();
    const reviews = join(h.project().dir, "reviews");
    const first = listReviewArtifacts(reviews, t.id, await h.project().store.artifactNames(t.id, "review"));
    expect(first.length).toBeGreaterThan(0);
    const firstRun = first[0]?.runId;
    expect(firstRun).not.toBeNull();
    const before = new Map(first.map((a) => [a.path, readFileSync(a.path, "utf8")]));

    // Run the task again (as `retry` does): a new run, with new artifacts beside the old ones.
    round = 1;
    await h.project().store.updateTask(t.id, { status: "queued", finalVerdict: null }, Date.now());
    await h.runAll();
    const all = listReviewArtifacts(reviews, t.id, await h.project().store.artifactNames(t.id, "review"));
    const runs = new Set(all.map((a) => a.runId));
    expect(runs.size).toBe(2);
    for (const [path, text] of before) expect(readFileSync(path, "utf8")).toBe(text);
    const second = all.filter((a) => a.runId !== firstRun);
    expect(readFileSync(second[0]?.path ?? "", "utf8")).toContain("round 1");

    const transcripts = readdirSync(join(h.project().dir, "transcripts", t.id));
    const prefixes = new Set(transcripts.map((n) => n.split("-")[0]));
    expect(prefixes.size).toBe(2);
    for (const p of prefixes) expect(p).toMatch(/^r\d+$/);
  });

  it("every transcript file of a finished run is there and holds what the store holds", async () => {
    const h = await oneFixCycle(() => "greet() crashes");
    const t = await h.addTask();
    await h.runAll();
    const stored = await h.project().store.listArtifacts(t.id, "transcript");
    expect(stored.length).toBeGreaterThan(2);
    const dir = join(h.project().dir, "transcripts", t.id);
    expect(readdirSync(dir).sort()).toEqual(stored.map((a) => a.name).sort());
    for (const a of stored) expect(readFileSync(join(dir, a.name), "utf8")).toBe(a.text);
  });
});
