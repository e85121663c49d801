import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainWorkflow } from "../../bench/util.js";
import { cleanTasks } from "../../src/app/clean.js";
import { createGit } from "../../src/git/git-cli.js";
import { loggingGit } from "../../src/git/temp-repo.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/**
 * Issue 10, through the engine: the git processes a task's run starts, counted by a wrapper that
 * logs each one's subcommand and runs the real git.
 */
/** A task queued on a chain of `stages` agent stages that change nothing, its git logged. */
async function chainTask(stages: number) {
  const h = await harness({ agents: { implementer: async () => ({ text: "nothing to change" }) } });
  const wrapper = loggingGit(join(h.root, ".."));
  h.deps.git = createGit({ gitPath: wrapper.path, env: h.env });
  const dir = join(h.root, ".fixpoint", "workflows");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "chain.kdl"), chainWorkflow(stages));
  const t = await h.addTask({ workflow: "chain" });
  return { h, wrapper, t };
}

describe("git processes of a run", () => {
  it("a chain whose stages change nothing starts git only to make its worktree", async () => {
    const { h, wrapper, t } = await chainTask(6);

    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(await h.task(t.id)).toMatchObject({ status: "completed" });
    expect((await h.stages(t.id)).filter((s) => s.stageId !== "done")).toHaveLength(6);
    const subcommands = wrapper.spawned();
    // Whether the branch exists, then the branch and its checkout: nothing per stage, not even the first.
    expect(subcommands).toEqual(["show-ref", "branch", "reset"]);
  });

  it("`clean` removes a finished task's worktree with one `git status` and no `git worktree` command", async () => {
    const { h, wrapper, t } = await chainTask(1);
    await h.runAll();
    wrapper.spawned();

    const r = await cleanTasks({ store: h.deps.store, git: h.deps.git, clock: h.deps.clock, actor: "test" });

    expect(r.removed).toBe(1);
    expect(wrapper.spawned()).toEqual(["status"]);
    expect(await h.task(t.id)).toMatchObject({ worktreePath: null });
  });
});
