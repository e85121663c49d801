import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
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

/** Every file of the checkout (except .git and fixpoint's own .fixpoint/) with its bytes. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (rel === ".git" || rel === ".fixpoint") continue;
      if (statSync(path).isDirectory()) walk(path);
      else out.set(rel, readFileSync(path).toString("base64"));
    }
  };
  walk(root);
  return out;
}

describe("the user's main checkout", () => {
  it("is never modified: a dirty checkout is byte-identical after a whole loop", async () => {
    const h = await harness({
      gates: { test: "node test/app.test.js" },
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")])
              : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved")),
        }),
        fixer: fixEverything(),
      },
    });
    const { repo, root } = h;
    repo.write("src/app.js", `${repo.read("src/app.js")}// my unsaved experiment\n`);
    repo.write("notes.txt", "things to try tomorrow\n");
    repo.git(["add", "notes.txt"]);
    repo.write("scratch.txt", "untracked\n");
    const before = {
      files: snapshot(root),
      status: repo.git(["status", "--porcelain"]),
      head: repo.git(["rev-parse", "HEAD"]),
      branch: repo.git(["symbolic-ref", "--short", "HEAD"]),
      index: repo.git(["diff", "--cached"]),
    };
    expect(before.status).not.toBe("");

    const t = await h.addTask();
    await h.runAll();

    expect(await h.task(t.id)).toMatchObject({ status: "completed", finalVerdict: "APPROVED" });
    expect(await h.branchLog(t.id)).toHaveLength(2);
    expect(snapshot(root)).toEqual(before.files);
    expect(repo.git(["status", "--porcelain"])).toBe(before.status);
    expect(repo.git(["rev-parse", "HEAD"])).toBe(before.head);
    expect(repo.git(["symbolic-ref", "--short", "HEAD"])).toBe(before.branch);
    expect(repo.git(["diff", "--cached"])).toBe(before.index);
    // The work happened in the task's own worktree, outside the checkout.
    const wt = (await h.task(t.id)).worktreePath ?? "";
    expect(wt.startsWith(root)).toBe(false);
    expect(readFileSync(join(wt, "src/feature.js"), "utf8")).toContain("double");
  });
});
