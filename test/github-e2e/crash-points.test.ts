/**
 * The GitHub stage's crash points (src/engine/crash-points.ts, docs/reliability.md): a
 * `fixpoint pr rework` killed with SIGKILL right after the push (`pr-pushed`) or right after a
 * thread reply was posted but before its marker was set (`reply-posted`), then run again, must
 * end like an uninterrupted run: same verdict, one reply per thread, each fix commit once on
 * the remote branch, and no agent stage that had finished run again — also when someone
 * comments under the orphaned reply before the next worker comes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { REPLY_MARKER } from "../../src/github/render.js";
import { exited, startCli } from "../helpers/cli.js";
import { createWorld, git, recordedPrompts, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const rabbit = { login: "coderabbitai", bot: true };

interface Outcome {
  verdict: string | null;
  status: string;
  subjects: string[];
  replies: number[];
  resolved: boolean[];
  prompts: string[];
}

/** A PR with a human's and a bot's thread, both answered by the scripted fixer. */
async function setUp(w: World) {
  const pull = w.gh.addPull({ head: "feature-x", base: "main" });
  const threads = [
    w.gh.addThread(pull.number, {
      path: "src/app.js",
      line: 2,
      comments: [{ author: "alice", body: "**Major**: parse() throws on malformed input." }],
    }),
    w.gh.addThread(pull.number, {
      path: "src/app.js",
      line: 1,
      comments: [{ author: rabbit, body: "_🟠 Major_\n\n**The function name hides that it can throw.**" }],
    }),
  ];
  return { pr: pull.number, threads };
}

async function outcome(w: World, pr: number, threads: { id: string }[]): Promise<Outcome> {
  const task = await w.withStore((s) => s.getTask(`pr-${pr}-cycle-1`));
  return {
    verdict: task?.finalVerdict ?? null,
    status: task?.status ?? "missing",
    subjects: git(w.origin, "log", "--format=%s", "feature-x").trim().split("\n"),
    replies: threads.map(
      (t) => w.gh.thread(t.id).comments.filter((c) => c.body.includes(REPLY_MARKER)).length,
    ),
    resolved: threads.map((t) => w.gh.thread(t.id).isResolved),
    prompts: promptKeys(w),
  };
}

function promptKeys(w: World): string[] {
  return recordedPrompts(w.prompts)
    .map((p) => `${p.role} ${p.stage}@${p.cycle}`)
    .sort();
}

describe("a pr rework SIGKILLed at a GitHub crash point, then run again", () => {
  it("pr-pushed and reply-posted: same verdict, one reply per thread, each commit once, no finished agent stage rerun", async () => {
    // The uninterrupted run.
    world = await createWorld();
    const base = await setUp(world);
    const plain = await world.fixpoint(["pr", "rework", String(base.pr)]);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    const baseline = await outcome(world, base.pr, base.threads);
    expect(baseline.verdict).toBe("APPROVED");
    expect(baseline.replies).toEqual([1, 1]);
    await world.close();
    world = undefined;

    for (const [at, speaks] of [
      ["pr-pushed", false],
      ["reply-posted", false],
      ["reply-posted:2", false],
      // Someone comments under the orphaned reply before the next worker comes.
      ["reply-posted", true],
    ] as const) {
      const label = speaks ? `${at} + a comment` : at;
      world = await createWorld();
      const w = world;
      const { pr, threads } = await setUp(w);
      const first = startCli(["pr", "rework", String(pr)], {
        cwd: w.repo,
        env: { ...w.env, FIXPOINT_CRASH_AT: at },
      });
      await exited(first);
      expect(first.signalCode, `the worker should have died at ${label}:\n${first.output()}`).toBe("SIGKILL");

      // What the dead worker had recorded as finished, and which agents had run by then.
      const ranBefore = promptKeys(w);
      const recorded = await w.withStore(async (s) =>
        (await s.listStageExecutions(`pr-${pr}-cycle-1`)).map((e) => e.stageId),
      );
      // The kill comes before the push (pr-pushed) or the reply (reply-posted) is recorded.
      expect(recorded, label).toEqual(
        at === "pr-pushed"
          ? ["ingest", "verify", "fix", "gates"]
          : ["ingest", "verify", "fix", "gates", "push"],
      );
      if (at === "pr-pushed") {
        // The branch is on the remote, no reply posted yet.
        expect(git(w.origin, "log", "-1", "--format=%s", "feature-x")).toContain("Address review feedback");
        expect(threads.map((t) => w.gh.thread(t.id).comments.length)).toEqual([1, 1]);
      } else {
        // The n-th reply is on GitHub; its marker never made it to the store.
        const posted = threads.map(
          (t) => w.gh.thread(t.id).comments.filter((c) => c.body.includes(REPLY_MARKER)).length,
        );
        expect(
          posted.reduce((a, b) => a + b, 0),
          label,
        ).toBe(at === "reply-posted:2" ? 2 : 1);
        if (speaks) {
          const answered = threads.find((t) =>
            w.gh.thread(t.id).comments.some((c) => c.body.includes(REPLY_MARKER)),
          );
          if (!answered) throw new Error("no answered thread");
          w.gh.replyInThread(answered.id, { author: "alice", body: "Thanks, looking." });
        }
      }

      const second = await w.fixpoint(["pr", "rework", String(pr)]);
      expect(second.code, `${label}: ${second.stdout}${second.stderr}`).toBe(0);
      expect(second.stdout, label).toContain(`continuing pr-${pr}-cycle-1`);

      const after = await outcome(w, pr, threads);
      expect(after.verdict, label).toBe(baseline.verdict);
      expect(after.status, label).toBe(baseline.status);
      expect(after.replies, label).toEqual([1, 1]);
      expect(after.resolved, label).toEqual(baseline.resolved);
      // The remote branch holds each fix commit once, as the uninterrupted run's does.
      expect(after.subjects, label).toEqual(baseline.subjects);
      // No agent ran more than in the uninterrupted run; the agents of stages recorded before the
      // kill (verify, fix) did not run again.
      expect(after.prompts, label).toEqual(baseline.prompts);
      const count = (keys: string[], k: string) => keys.filter((x) => x === k).length;
      expect(ranBefore.length, label).toBeGreaterThan(0);
      for (const k of new Set(ranBefore)) {
        const stage = k.split(" ")[1]?.split("@")[0] ?? "";
        if (recorded.includes(stage))
          expect(count(after.prompts, k), `${label}: ${k}`).toBe(count(ranBefore, k));
      }
      expect(await w.withStore(async (s) => (await s.listTaskSummaries()).map((t) => t.id))).toEqual([
        `pr-${pr}-cycle-1`,
      ]);
      await w.close();
      world = undefined;
    }
  }, 180_000);
});

describe("a pr open SIGKILLed right after its push (pr-pushed), then run again", () => {
  it("opens exactly one PR for the branch, the remote branch holds each commit once", async () => {
    world = await createWorld();
    const w = world;
    expect((await w.fixpoint(["add", "Add a feature", "--workflow", "implement-only"])).code).toBe(0);
    expect((await w.fixpoint(["work"])).code).toBe(0);
    const task = await w.withStore((s) => s.getTask("t-1"));
    const branch = task?.branch;
    if (!branch) throw new Error("t-1 has no branch");
    const local = git(w.repo, "log", "--format=%H %s", `main..${branch}`).trim().split("\n");

    const first = startCli(["pr", "open", "t-1"], {
      cwd: w.repo,
      env: { ...w.env, FIXPOINT_CRASH_AT: "pr-pushed" },
    });
    await exited(first);
    expect(first.signalCode, `the worker should have died at pr-pushed:\n${first.output()}`).toBe("SIGKILL");
    // The branch is on the remote, no PR names it, the task records none.
    expect(git(w.origin, "rev-parse", branch).trim()).toBe(git(w.repo, "rev-parse", branch).trim());
    expect([...w.gh.world.allPulls()]).toHaveLength(0);
    expect((await w.withStore((s) => s.getTask("t-1")))?.meta.prNumber).toBeUndefined();

    const second = await w.fixpoint(["pr", "open", "t-1"]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^opened PR #1/);
    // Once more: the PR is updated, never opened twice.
    const third = await w.fixpoint(["pr", "open", "t-1"]);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^updated PR #1/);

    const pulls = [...w.gh.world.allPulls()];
    expect(pulls.map((p) => p.head)).toEqual([branch]);
    expect((await w.withStore((s) => s.getTask("t-1")))?.meta.prNumber).toBe(1);
    // The remote branch is the local one: each commit once, nothing made by the rerun.
    expect(git(w.origin, "log", "--format=%H %s", `main..${branch}`).trim().split("\n")).toEqual(local);
    const subjects = local.map((l) => l.slice(41));
    expect(new Set(subjects).size).toBe(subjects.length);
  }, 120_000);
});
