import { afterEach, describe, expect, it } from "vitest";
import { REPLY_MARKER } from "../../src/github/render.js";
import { createWorld, git, recordedPrompts, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const rabbit = { login: "coderabbitai", bot: true };

function roles(w: World): Record<string, number> {
  const out: Record<string, number> = {};
  // The verify stage asks the reviewer agent too: counted apart, as `verifier`.
  for (const p of recordedPrompts(w.prompts)) {
    const role = p.stage === "verify" ? "verifier" : p.role;
    out[role] = (out[role] ?? 0) + 1;
  }
  return out;
}

async function tasks(w: World) {
  return w.withStore(async (s) =>
    (await s.listTaskSummaries()).map((t) => ({
      id: t.id,
      status: t.status,
      stage: t.currentStage,
      verdict: t.finalVerdict,
    })),
  );
}

const WAITING =
  /^waiting for the PR's reviewers on #1 \(head ([0-9a-f]{12})\); `fixpoint pr watch` continues when they answer$/;

describe("wait-for-review", () => {
  it("pauses after the replies instead of running fixpoint's reviewers, and pr watch continues the same task to APPROVED once the PR's reviewer approves the pushed head", async () => {
    world = await createWorld({ github: { "wait-for-review": "#true" } });
    const { gh } = world;
    const oldHead = git(world.origin, "rev-parse", "feature-x").trim();
    const pull = gh.addPull({ head: "feature-x", base: "main", labels: ["fixpoint"] });
    const human = gh.addThread(pull.number, {
      path: "src/app.js",
      line: 2,
      comments: [{ author: "alice", body: "**Major**: parse() throws on malformed input." }],
    });
    const bot = gh.addThread(pull.number, {
      path: "src/app.js",
      line: 1,
      comments: [{ author: rabbit, body: "**Major**: the name hides that it can throw." }],
    });

    const first = await world.fixpoint(["pr", "watch", "--once"]);
    expect(first.stdout).toContain("queued pr-1-cycle-1");
    const pushed = git(world.origin, "rev-parse", "feature-x").trim();
    expect(pushed).not.toBe(oldHead);
    const waiting = await world.withStore((s) => s.getTask("pr-1-cycle-1"));
    expect(waiting?.status).toBe("needs_human");
    expect(waiting?.currentStage).toBe("await_review");
    expect(waiting?.reason).toMatch(WAITING);
    expect(WAITING.exec(waiting?.reason ?? "")?.[1]).toBe(pushed.slice(0, 12));
    // The threads were answered; fixpoint's own reviewers never ran.
    expect(gh.thread(human.id).comments.at(-1)?.body).toContain(REPLY_MARKER);
    expect(gh.thread(bot.id).isResolved).toBe(true);
    expect(roles(world)).toEqual({ fixer: 1, verifier: 1 });

    // Nothing yet on the pushed head (an approval of the old head does not count): nothing runs.
    gh.addReview(pull.number, { author: "alice", state: "APPROVED", commitId: oldHead });
    const idle = await world.fixpoint(["pr", "watch", "--once"]);
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain(
      `#1: pr-1-cycle-1 waits for the PR's reviewers (head ${pushed.slice(0, 12)})`,
    );
    expect(idle.stdout).not.toContain("continuing");
    expect(await tasks(world)).toEqual([
      { id: "pr-1-cycle-1", status: "needs_human", stage: "await_review", verdict: null },
    ]);
    const stagesBefore = await world.withStore((s) => s.listStageExecutions("pr-1-cycle-1"));

    gh.addReview(pull.number, { author: "mallory", state: "CHANGES_REQUESTED", commitId: pushed });
    gh.addReview(pull.number, { author: "alice", state: "APPROVED", body: "Thanks!", commitId: pushed });
    const approved = await world.fixpoint(["pr", "watch", "--once"]);
    expect(approved.stdout).toContain(
      `PR #1: the PR's reviewers approved at ${pushed.slice(0, 12)}; continuing pr-1-cycle-1`,
    );
    expect(approved.stdout).not.toContain("0 threads");
    expect(approved.code).toBe(0);
    expect(await tasks(world)).toEqual([
      { id: "pr-1-cycle-1", status: "completed", stage: null, verdict: "APPROVED" },
    ]);
    expect(roles(world)).toEqual({ fixer: 1, verifier: 1 });
    await world.withStore(async (s) => {
      const task = await s.getTask("pr-1-cycle-1");
      expect(task?.reason).toBe("the pull request's reviewers approved the rework");
      // The same run went on from its checkpoint: only await_review ran again, then the exit.
      const stages = await s.listStageExecutions("pr-1-cycle-1");
      expect(stages.slice(stagesBefore.length).map((x) => x.stageId)).toEqual([
        "await_review",
        "pr_approved",
      ]);
      const findings = await s.listFindings("pr-1-cycle-1");
      expect(findings.map((f) => f.status)).toEqual(["resolved", "resolved"]);
      const events = (await s.listEvents("pr-1-cycle-1")).map((e) => e.type);
      expect(events.filter((t) => t === "github.awaiting_review")).toHaveLength(1);
      expect(events).toContain("github.review_answered");
    });
    // No second cycle: the reviewers are satisfied.
    const after = await world.fixpoint(["pr", "watch", "--once"]);
    expect(after.stdout).toContain("#1: no new feedback");
    expect((await tasks(world)).map((t) => t.id)).toEqual(["pr-1-cycle-1"]);
  }, 90_000);

  it("when the PR's reviewer asks for more changes on the pushed head, the waiting task ends saying so and pr watch starts the next cycle", async () => {
    world = await createWorld({ github: { "wait-for-review": "#true" } });
    const { gh } = world;
    const pull = gh.addPull({ head: "feature-x", base: "main", labels: ["fixpoint"] });
    gh.addThread(pull.number, {
      path: "src/app.js",
      line: 2,
      comments: [{ author: "alice", body: "Validate the input." }],
    });
    await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect((await tasks(world))[0]).toMatchObject({ id: "pr-1-cycle-1", stage: "await_review" });
    const pushed = git(world.origin, "rev-parse", "feature-x").trim();

    gh.addReview(pull.number, {
      author: "alice",
      state: "CHANGES_REQUESTED",
      body: "",
      commitId: pushed,
    });
    const followUp = gh.addThread(pull.number, {
      path: "src/app.js",
      line: 3,
      comments: [{ author: "alice", body: "NEWTHREAD: also reject an empty string." }],
    });
    const r = await world.fixpoint(["pr", "watch", "--once"]);
    expect(r.stdout).toContain(
      `#1: the PR's reviewers asked for more changes at ${pushed.slice(0, 12)}; continuing pr-1-cycle-1`,
    );
    expect(r.stdout).toContain("queued pr-1-cycle-2");
    const cycle1 = await world.withStore((s) => s.getTask("pr-1-cycle-1"));
    expect(cycle1?.status).toBe("needs_human");
    expect(cycle1?.finalVerdict).toBe("CHANGES_REQUESTED");
    expect(cycle1?.currentStage).toBeNull();
    expect(cycle1?.reason).toContain(
      "the PR's reviewers asked for more changes; rework continues in pr-1-cycle-2",
    );
    // Cycle 2 took the new thread, answered it, and waits for the reviewers of its own push.
    const fixers = recordedPrompts(world.prompts).filter((p) => p.role === "fixer");
    expect(fixers.map((p) => p.task)).toEqual(["pr-1-cycle-1", "pr-1-cycle-2"]);
    expect(fixers[1]?.prompt).toContain("NEWTHREAD");
    expect(gh.thread(followUp.id).comments.at(-1)?.body).toMatch(/^Applied in [0-9a-f]{12}/);
    const head2 = git(world.origin, "rev-parse", "feature-x").trim();
    expect(head2).not.toBe(pushed);
    const cycle2 = await world.withStore((s) => s.getTask("pr-1-cycle-2"));
    expect(cycle2?.currentStage).toBe("await_review");
    expect(cycle2?.reason).toContain(`(head ${head2.slice(0, 12)})`);
    expect(roles(world).reviewer).toBeUndefined();

    // Asked again: nothing new is started for the same head, the new task keeps waiting.
    const again = await world.fixpoint(["pr", "watch", "--once"]);
    expect(again.stdout).toContain("#1: pr-1-cycle-2 waits for the PR's reviewers");
    expect((await tasks(world)).map((t) => t.id)).toEqual(["pr-1-cycle-1", "pr-1-cycle-2"]);
  }, 90_000);
});
