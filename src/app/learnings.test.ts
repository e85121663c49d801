import { afterEach, describe, expect, it } from "vitest";
import { finding, newTask } from "../../test/store/samples.js";
import type { Store } from "../domain/store.js";
import { createGit } from "../git/git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from "../git/temp-repo.js";
import { openSqliteStore } from "../store/sqlite/sqlite-store.js";
import { deferFinding, dismissFinding, reopenFinding } from "./finding-status.js";
import { addLearning, listLearnings, removeLearning } from "./learnings.js";

let repo: TempRepo | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  repo?.cleanup();
  repo = undefined;
  store = undefined;
});

async function setup() {
  repo = createTempRepo();
  repo.commit({ "src/lib/a.ts": "export const a = 1;\n", "docs/x.md": "# x\n" }, "files");
  store = await openSqliteStore(`${repo.dir}/store.sqlite`);
  let t = 10_000;
  const ctx = {
    store,
    git: createGit({ env: ISOLATED_GIT_ENV }),
    clock: { now: () => t++, sleep: async () => undefined },
    actor: "alice",
    root: repo.repo,
  };
  const task = await store.createTask(newTask({ repo: repo.repo }), 1);
  await store.saveFindings(
    task.id,
    [
      finding(task.id, "F-1", { file: "src/lib/a.ts", lineStart: 1, lineEnd: 1, title: "no type check" }),
      finding(task.id, "F-2", { status: "blocked" }),
    ],
    [],
    2,
  );
  return { ctx, task, store };
}

describe("dismiss, reopen, defer a finding", () => {
  it("a dismissal needs a reason, records the finding dismissed with it, and teaches a learning", async () => {
    const { ctx, task, store } = await setup();
    await expect(dismissFinding(ctx, { task: task.id, finding: "F-1", reason: "  " })).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("a dismissal needs a reason"),
    });
    await expect(dismissFinding(ctx, { task: task.id, finding: "F-9", reason: "x" })).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining("F-9"),
    });
    await expect(dismissFinding(ctx, { task: "t-99", finding: "F-1", reason: "x" })).rejects.toMatchObject({
      code: "not_found",
    });
    const r = await dismissFinding(ctx, {
      task: task.id,
      finding: "F-1",
      reason: "validated at the boundary",
    });
    expect(r.message).toBe("F-1 dismissed; learning L-1 recorded");
    expect(r.finding).toMatchObject({ status: "dismissed", note: "validated at the boundary" });
    expect(r.learning).toMatchObject({
      id: "L-1",
      repo: ctx.root,
      text: "validated at the boundary",
      scope: "src/lib/a.ts",
      source: { kind: "dismissed", taskId: task.id, findingId: "F-1" },
      origin: { file: "src/lib/a.ts", lineStart: 1, title: "no type check", severity: "P1" },
      createdBy: "alice",
    });
    const [f1] = await store.listFindings(task.id);
    expect(f1).toMatchObject({ status: "dismissed", note: "validated at the boundary" });
    const ev = (await store.listEvents(task.id)).at(-1);
    expect(ev).toMatchObject({
      type: "finding.dismissed",
      data: {
        finding: "F-1",
        from: "open",
        by: "alice",
        reason: "validated at the boundary",
        learning: "L-1",
      },
    });
    await expect(
      dismissFinding(ctx, { task: task.id, finding: "F-1", reason: "again" }),
    ).rejects.toMatchObject({
      code: "usage",
    });
  });

  it("--no-learn dismisses without a learning; reopening a dismissal removes the learning it taught", async () => {
    const { ctx, task } = await setup();
    const quiet = await dismissFinding(ctx, {
      task: task.id,
      finding: "F-2",
      reason: "won't fix",
      learn: false,
    });
    expect(quiet.learning).toBeNull();
    expect(await listLearnings(ctx)).toEqual([]);
    await dismissFinding(ctx, { task: task.id, finding: "F-1", reason: "fine here" });
    expect((await listLearnings(ctx)).map((l) => l.id)).toEqual(["L-1"]);
    const back = await reopenFinding(ctx, { task: task.id, finding: "f-1" });
    expect(back.message).toBe("F-1 reopened; learning L-1 removed");
    expect(back.finding).toMatchObject({ status: "open", note: "reopened by alice", timesReopened: 1 });
    expect(await listLearnings(ctx)).toEqual([]);
    expect((await listLearnings(ctx, { removed: true }))[0]?.removedAt).not.toBeNull();
    await expect(reopenFinding(ctx, { task: task.id, finding: "F-1" })).rejects.toMatchObject({
      code: "usage",
    });
  });

  it("defers only open or blocked findings, with a reason", async () => {
    const { ctx, task } = await setup();
    await expect(deferFinding(ctx, { task: task.id, finding: "F-2", reason: "" })).rejects.toMatchObject({
      code: "usage",
    });
    expect((await deferFinding(ctx, { task: task.id, finding: "F-2", reason: "later" })).finding.status).toBe(
      "deferred",
    );
    await expect(deferFinding(ctx, { task: task.id, finding: "F-2", reason: "again" })).rejects.toMatchObject(
      {
        code: "usage",
      },
    );
  });
});

describe("a person's learnings", () => {
  it("adds, lists and removes learnings; empty text, a glob matching nothing and unknown ids are refused", async () => {
    const { ctx } = await setup();
    await expect(addLearning(ctx, { text: " \n" })).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("a learning needs a text"),
    });
    await expect(addLearning(ctx, { text: "x", path: "lib/**" })).rejects.toMatchObject({
      code: "usage",
      message: "--path `lib/**` matches no tracked file of this repository",
    });
    const wide = await addLearning(ctx, { text: "ignore all security findings" });
    const scoped = await addLearning(ctx, { text: "docs are generated", path: "docs/**" });
    expect(wide).toMatchObject({ id: "L-1", scope: null, origin: null, source: { kind: "person" } });
    expect(scoped).toMatchObject({ id: "L-2", scope: "docs/**", createdBy: "alice" });
    expect((await listLearnings(ctx)).map((l) => l.id)).toEqual(["L-1", "L-2"]);
    expect((await removeLearning(ctx, { id: "L-1" })).removedAt).not.toBeNull();
    await expect(removeLearning(ctx, { id: "L-1" })).rejects.toMatchObject({ code: "not_found" });
    await expect(removeLearning(ctx, { id: "L-9" })).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining("L-9"),
    });
    expect((await listLearnings(ctx)).map((l) => l.id)).toEqual(["L-2"]);
  });
});
