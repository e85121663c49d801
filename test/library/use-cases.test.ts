import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resumeTask } from "../../src/app/resume.js";
import type { AgentBackend, AgentRequest, AgentResult } from "../../src/domain/agent.js";
import type { Lease, Store, StoreOps } from "../../src/domain/store.js";
import { createFixpoint, type Fixpoint, FixpointError } from "../../src/index.js";
import { systemClock } from "../../src/util/clock.js";
import { git, isolatedEnv, tempDir } from "../helpers/cli.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const reply = (text: string): AgentResult => ({
  ok: true,
  text,
  usage,
  costUsd: 0,
  exitCode: 0,
  durationMs: 1,
});
const idsIn = (prompt: string) => [...new Set(prompt.match(/\bF-\d+\b/g) ?? [])];

/** Implements by writing hello.txt, fixes by appending the requested line, approves every review. */
function agent(prompts: AgentRequest[]): AgentBackend {
  return {
    kind: "test",
    supportsSessions: false,
    async run(req) {
      prompts.push(req);
      if (req.purpose === "review") {
        const prior = idsIn(req.prompt).map((id) => ({ id, status: "resolved", note: "checked" }));
        return reply(JSON.stringify({ verdict: "APPROVED", summary: "Fine.", findings: [], prior }));
      }
      if (req.purpose === "fix") {
        appendFileSync(join(req.cwd, "hello.txt"), "goodbye\n");
        const findings = idsIn(req.prompt).map((id) => ({
          id,
          status: "fixed",
          justification: "hello.txt now also says goodbye, as the feedback asked",
          reason: null,
        }));
        return reply(JSON.stringify({ summary: "Added goodbye.", findings }));
      }
      writeFileSync(join(req.cwd, "hello.txt"), "hello\n");
      return reply("Wrote hello.txt");
    },
  };
}

describe("the use cases through createFixpoint", () => {
  let root = "";
  let repo = "";
  let fp: Fixpoint;
  const prompts: AgentRequest[] = [];

  beforeAll(async () => {
    root = tempDir("fixpoint-lib-");
    repo = join(root, "repo");
    const env = isolatedEnv(root);
    git(root, "init", "-q", "-b", "main", repo);
    writeFileSync(join(repo, "README.md"), "# r\n");
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "initial");
    const a = agent(prompts);
    fp = await createFixpoint({
      cwd: repo,
      env,
      actor: "lib-test",
      agents: { implementer: a, reviewer: a, fixer: a },
    });
  });

  afterAll(async () => {
    await fp?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("adds a task and works it to APPROVED; every action names who did it", async () => {
    const task = await fp.addTask({ prompt: "Write hello.txt" });
    const r = await fp.work({ ids: [task.id] });
    expect(r.allApproved).toBe(true);
    const shown = await fp.show(task.id);
    expect(shown.task.finalVerdict).toBe("APPROVED");
    expect(shown.events.find((e) => e.type === "task.queued")?.data.by).toBe("lib-test");
    expect(existsSync(join(repo, ".fixpoint"))).toBe(true);
    // This test's agents write no transcript; the ones in the task's folder come back in name order.
    const dir = join(repo, ".fixpoint", "transcripts", task.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "r1-b.log"), "second");
    writeFileSync(join(dir, "r1-a.log"), "first");
    expect(await fp.transcripts(task.id)).toEqual([
      { name: "r1-a.log", text: "first" },
      { name: "r1-b.log", text: "second" },
    ]);
  });

  it("retry refuses an approved task without force and writes nothing", async () => {
    const err = await fp.retry({ task: "t-1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixpointError);
    expect(err).toMatchObject({ code: "usage" });
    expect((await fp.show("t-1")).runs).toHaveLength(1);
  });

  it("resume with feedback: the feedback is a blocking finding the fixer answers and the reviewers verify", async () => {
    const restart = await fp.resume({ task: "t-1", feedback: "Also say goodbye" });
    expect(restart.message).toMatch(/^Your feedback is F-1\. /);
    const [f] = await fp.findings({ task: "t-1" });
    expect(f).toMatchObject({ id: "F-1", status: "open", category: "feedback", severity: "P1" });
    expect(f?.sources).toEqual([{ source: "human", cycle: 0, author: "lib-test" }]);

    const before = prompts.length;
    await fp.work({ ids: ["t-1"] });
    const fix = prompts.slice(before).find((p) => p.purpose === "fix");
    expect(fix?.prompt).toContain("Also say goodbye");
    const done = await fp.show("t-1");
    expect(done.task.finalVerdict).toBe("APPROVED");
    expect(done.findings.map((x) => [x.id, x.status])).toEqual([["F-1", "resolved"]]);
    expect(git(repo, "show", `${done.task.branch}:hello.txt`)).toBe("hello\ngoodbye\n");
  });

  it("resume is one transaction: a failure at its last write leaves the task as it was", async () => {
    const store = fp.store;
    // The real store, except that inside a transaction the final event write fails.
    const failing: Store = Object.assign(Object.create(store) as Store, {
      transaction: <T>(fn: (tx: StoreOps) => Promise<T>, opts?: { fence?: Lease }) =>
        store.transaction(
          (tx) =>
            fn(
              Object.assign(Object.create(tx) as StoreOps, {
                appendEvents: async () => {
                  throw new Error("disk full");
                },
              }),
            ),
          opts,
        ),
    });
    const before = await fp.show("t-1");
    const ctx = { store: failing, clock: systemClock, actor: "x", config: fp.config, env: {} };
    await expect(resumeTask(ctx, { task: "t-1", feedback: "one more thing" })).rejects.toThrow("disk full");
    const after = await fp.show("t-1");
    expect(after.runs).toEqual(before.runs);
    expect(after.findings).toEqual(before.findings);
    expect(after.task).toEqual(before.task);
  });

  it("editTask changes limits with an event; bad input is a usage error naming the field", async () => {
    const r = await fp.editTask({ task: "t-1", maxCycles: 5 });
    expect(r.task.maxCycles).toBe(5);
    expect((await fp.logs({ task: "t-1" })).events.at(-1)).toMatchObject({
      type: "task.edited",
      data: { maxCycles: [3, 5], by: "lib-test" },
    });
    await expect(fp.editTask({ task: "t-1", maxCycles: 0 })).rejects.toThrow(
      "editTask: maxCycles: Number must be greater than or equal to 1",
    );
    await expect(fp.editTask({ task: "t-1", priority: 1.5 })).rejects.toThrow(
      "editTask: priority: Expected integer, received float",
    );
    await expect(fp.editTask({ task: "t-1" })).rejects.toMatchObject({ code: "usage" });
    const p = await fp.editTask({ task: "t-1", priority: 3, notes: "  see the design doc  " });
    expect(p.task).toMatchObject({ priority: 3, notes: "see the design doc" });
    expect(p.changes).toEqual({ priority: [0, 3], notes: [null, "see the design doc"] });
    await expect(fp.cancel("t-1")).rejects.toMatchObject({
      code: "usage",
      message: "t-1 is already completed",
    });
    await expect(fp.show("t-99")).rejects.toMatchObject({ code: "not_found" });
  });

  it("a malformed option is a FixpointError naming it; init:false refuses an uninitialised repository", async () => {
    await expect(createFixpoint({ cwd: 42 as unknown as string })).rejects.toMatchObject({
      code: "usage",
      message: "createFixpoint: cwd: Expected string, received number",
    });
    const other = join(root, "other");
    git(root, "init", "-q", "-b", "main", other);
    await expect(createFixpoint({ cwd: other, init: false, env: isolatedEnv(root) })).rejects.toMatchObject({
      code: "usage",
    });
    expect(existsSync(join(other, ".fixpoint"))).toBe(false);
  });
});
