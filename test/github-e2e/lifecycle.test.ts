import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPLY_MARKER } from "../../src/github/render.js";
import { CLI, exited, waitFor } from "../helpers/cli.js";
import { createWorld, git, recordedPrompts, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const rabbit = { login: "coderabbitai", bot: true };

async function reworkTasks(w: World, pr: number): Promise<string[]> {
  return w.withStore(async (s) =>
    (await s.listTaskSummaries()).map((t) => t.id).filter((id) => id.startsWith(`pr-${pr}-`)),
  );
}

function threadAt(_gh: unknown, threads: { id: string }[], i: number): string {
  const t = threads[i];
  if (!t) throw new Error(`no thread ${i}`);
  return t.id;
}

describe("the PR rework loop", () => {
  it("is idempotent across a SIGKILL and repeated commands: one task per cycle, one reply per thread, each issue filed once with its history", async () => {
    world = await createWorld({ env: { FIXPOINT_TEST_HANG_FIX: "1" } });
    const { gh } = world;
    const pull = gh.addPull({ head: "feature-x", base: "main" });
    const threads = [
      gh.addThread(pull.number, {
        path: "src/app.js",
        line: 2,
        comments: [{ author: "alice", body: "Validate the input before parsing." }],
      }),
      gh.addThread(pull.number, {
        path: "src/app.js",
        line: 30,
        comments: [{ author: "alice", body: "BLOCKME: should a failed parse be retried forever?" }],
      }),
      gh.addThread(pull.number, {
        path: "src/app.js",
        line: 80,
        comments: [{ author: rabbit, body: "Nit: DEFERME the helper name is vague." }],
      }),
    ];

    // First run: killed while the fixer hangs.
    const first = spawn(process.execPath, [CLI, "pr", "rework", String(pull.number)], {
      cwd: world.repo,
      env: world.env,
      stdio: "ignore",
    });
    const waiting = `${world.prompts}.fixer-waiting`;
    await waitFor(() => existsSync(waiting), 30_000, "the fixer to start");
    first.kill("SIGKILL");
    await exited(first);
    expect(await reworkTasks(world, pull.number)).toEqual(["pr-1-cycle-1"]);

    // Second run: continues the same task instead of starting another cycle.
    const second = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(second.stdout).toContain("continuing pr-1-cycle-1");
    expect(second.stdout).toContain("Resuming pr-1-cycle-1");
    expect(second.stdout).toContain("tech-debt: 2 issues filed");
    expect(await reworkTasks(world, pull.number)).toEqual(["pr-1-cycle-1"]);

    // Third run: every thread's last word is fixpoint's reply — nothing new: no task, no push,
    // no reply.
    const pushesBefore = git(world.origin, "rev-parse", "feature-x");
    const third = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain("PR #1: no new review feedback since pr-1-cycle-1; nothing to rework");
    expect(await reworkTasks(world, pull.number)).toEqual(["pr-1-cycle-1"]);
    expect(git(world.origin, "rev-parse", "feature-x")).toBe(pushesBefore);

    // Someone speaks after fixpoint's reply: the thread is feedback again, and only it.
    gh.replyInThread(threadAt(gh, threads, 0), { author: "alice", body: "Also reject an empty string." });
    const fourth = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(fourth.stdout).toContain("queued pr-1-cycle-2");
    expect(await reworkTasks(world, pull.number)).toEqual(["pr-1-cycle-1", "pr-1-cycle-2"]);
    // Each rework cycle's commit says which cycle it is.
    const subjects = git(world.origin, "log", "--format=%s", "feature-x");
    expect(subjects).toContain("Address review feedback (PR #1 rework cycle 1, fix cycle 1)");
    expect(subjects).toContain("Address review feedback (PR #1 rework cycle 2, fix cycle 1)");

    const replies = threads.map((t) =>
      gh
        .thread(t.id)
        .comments.filter((c) => c.body.includes(REPLY_MARKER))
        .map((c) => c.body),
    );
    expect(replies.map((r) => r.length)).toEqual([2, 1, 1]);
    expect(replies[0]?.[0]).toMatch(/^Applied in [0-9a-f]{12}: guarded the input/);
    expect(replies[1]?.[0]).toMatch(
      /^Declined: blocked — needs a human decision: The retry policy is a product decision/,
    );
    expect(replies[2]?.[0]).toMatch(/^Declined: deferred — Needs the streaming parser/);
    // Declined threads stay open, even the bot's: a human should read why.
    expect(threads.map((t) => gh.thread(t.id).isResolved)).toEqual([false, false, false]);

    const issues = gh.issues();
    expect(issues).toHaveLength(2);
    const blocked = issues.find((i) => i.title.includes("retried forever"));
    const deferred = issues.find((i) => i.title.includes("helper name"));
    expect(blocked?.labels).toEqual(["tech-debt"]);
    expect(blocked?.body).toMatch(
      /\| 1 \| blocked \| [^|]*The retry policy is a product decision the reviewer must make\. \|/,
    );
    expect(blocked?.body).toContain(`/pull/${pull.number}`);
    expect(blocked?.body).toMatch(/<!-- fixpoint:finding:src\/app\.js:.+ -->/);
    expect(deferred?.title).toMatch(/^\[P3\]/);
    expect(deferred?.body).toMatch(/\| 1 \| deferred \| Needs the streaming parser/);

    // The interrupted fix ran again on resume; the push holds the interrupted fixer's work too.
    expect(git(world.origin, "show", "feature-x:FIXES.md")).toContain(
      "half-done work of the interrupted fixer",
    );
  }, 90_000);

  it("past max-rework-cycles marks the original task needs_human and runs notify once", async () => {
    world = await createWorld({ github: { "max-rework-cycles": "1", draft: "#true" } });
    const { gh } = world;
    expect((await world.fixpoint(["add", "Add a feature", "--workflow", "implement-only"])).code).toBe(0);
    expect((await world.fixpoint(["work"])).code).toBe(0);

    const opened = await world.fixpoint(["pr", "open", "t-1"]);
    expect(opened.stderr).toBe("");
    expect(opened.stdout).toMatch(/^opened PR #1/);
    const pull = gh.pull(1);
    expect(pull.head).toMatch(/^fixpoint\/t-1-/);
    expect(pull.draft).toBe(false); // t-1 was approved: no draft
    expect(pull.body).toContain("<!-- fixpoint:task:t-1 -->");
    expect(pull.labels).toContain("fixpoint"); // so `pr watch` finds it
    expect(git(world.origin, "show", `${pull.head}:src/feature.js`)).toContain("42");

    gh.addThread(1, {
      path: "src/feature.js",
      line: 1,
      comments: [{ author: "alice", body: "Name the magic number." }],
    });
    const cycle1 = await world.fixpoint(["pr", "rework", "1"]);
    expect(cycle1.code).toBe(0);
    const [original, rework] = await world.withStore(async (s) => [
      await s.getTask("t-1"),
      await s.getTask("pr-1-cycle-1"),
    ]);
    expect(rework?.worktreePath).toBe(original?.worktreePath);
    expect(rework?.branch).toBe(original?.branch);
    expect(rework?.parentId).toBe("t-1");

    for (let i = 0; i < 2; i++) {
      const limit = await world.fixpoint(["pr", "rework", "1"]);
      expect(limit.code).toBe(1);
      expect(limit.stdout).toContain(
        "t-1 needs a human: pull request #1 still has review feedback after 1 rework cycle",
      );
    }
    expect(await reworkTasks(world, 1)).toEqual(["pr-1-cycle-1"]);
    const t1 = await world.withStore((s) => s.getTask("t-1"));
    expect(t1?.status).toBe("needs_human");
    expect(t1?.reason).toContain("max-rework-cycles 1");
    const log = readFileSync(world.notifyLog, "utf8");
    expect(log.match(/^--- /gm)).toHaveLength(1);
    expect(log).toContain("--- pr=1 task=t-1");
    expect(log).toContain("fixpoint: pull request #1 needs a human (task t-1).");
    const events = await world.withStore((s) => s.listEvents("t-1"));
    expect(events.filter((e) => e.type === "github.rework_limit")).toHaveLength(2);
  }, 90_000);

  it("a merged pull request stops the loop before any task or agent runs", async () => {
    world = await createWorld();
    const { gh } = world;
    const pull = gh.addPull({ head: "feature-x", base: "main", state: "merged", labels: ["fixpoint"] });
    gh.addThread(pull.number, { comments: [{ author: "alice", body: "Too late now." }] });
    const r = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `pull request #${pull.number} was merged; nothing more to do for it; rework stopped`,
    );
    expect(await reworkTasks(world, pull.number)).toEqual([]);
    expect(recordedPrompts(world.prompts)).toEqual([]);
    // watch only looks at open PRs: nothing to start.
    const watch = await world.fixpoint(["pr", "watch", "--once"]);
    expect(watch.code).toBe(0);
    expect(await reworkTasks(world, pull.number)).toEqual([]);
  });

  it("when the thread read never answers, the run goes on after comment-timeout with the review summary and says why", async () => {
    world = await createWorld({ github: { "comment-timeout": '"1s"' } });
    const { gh } = world;
    const pull = gh.addPull({ head: "feature-x", base: "main" });
    gh.addReview(pull.number, {
      author: "alice",
      state: "CHANGES_REQUESTED",
      body: "Handle empty input in parse().",
    });
    gh.addThread(pull.number, { comments: [{ author: "alice", body: "THREAD-TEXT never read" }] });
    gh.hang(/^POST \/graphql reviewThreads$/);

    const started = Date.now();
    const r = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.stdout).toContain(
      "GitHub did not answer within 1s; review threads not read, continuing with the review summary",
    );
    expect(r.stdout).toContain("completed: APPROVED");
    const fixer = recordedPrompts(world.prompts).find((p) => p.role === "fixer")?.prompt ?? "";
    expect(fixer).toContain("Handle empty input in parse()");
    expect(fixer).not.toContain("THREAD-TEXT");
    const events = await world.withStore((s) => s.listEvents(`pr-${pull.number}-cycle-1`));
    expect(events.find((e) => e.type === "github.feedback_partial")?.data.reason).toContain(
      "did not answer within 1s",
    );
  }, 60_000);

  it("never force-pushes: when origin has commits fixpoint did not make, the run stops before replying", async () => {
    world = await createWorld();
    const { gh, repo, root } = world;
    const pull = gh.addPull({ head: "feature-x", base: "main" });
    const thread = gh.addThread(pull.number, {
      path: "src/app.js",
      line: 2,
      comments: [{ author: "alice", body: "Validate the input." }],
    });
    // The local branch has a commit of its own; someone else pushed to the PR meanwhile.
    git(repo, "fetch", "-q", "origin", "feature-x:feature-x");
    git(repo, "checkout", "-q", "feature-x");
    writeFileSync(join(repo, "LOCAL.md"), "local\n");
    git(repo, "add", "LOCAL.md");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "local only");
    git(repo, "checkout", "-q", "main");
    const clone = join(root, "clone");
    writeFileSync(join(clone, "THEIRS.md"), "theirs\n");
    git(clone, "add", "THEIRS.md");
    git(clone, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "someone else");
    git(clone, "push", "-q", "origin", "feature-x");
    const before = git(world.origin, "rev-parse", "feature-x").trim();

    const r = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(r.stderr).toContain("have diverged");
    expect(r.stdout).toContain("the remote branch feature-x has commits fixpoint did not make");
    expect(r.code).toBe(1);
    expect(git(world.origin, "rev-parse", "feature-x").trim()).toBe(before);
    expect(gh.thread(thread.id).comments).toHaveLength(1);
    const task = await world.withStore((s) => s.getTask(`pr-${pull.number}-cycle-1`));
    expect(task?.status).toBe("needs_human");
    // The one-line reason says what went wrong, not just which exit was taken.
    expect(task?.reason).toMatch(/^GitHub step failed: push: .*has commits fixpoint did not make/);
  }, 60_000);
});
