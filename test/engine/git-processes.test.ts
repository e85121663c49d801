import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainWorkflow } from "../../bench/util.js";
import { createGit } from "../../src/git/git-cli.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/**
 * Issue 10, through the engine: the git processes a task's run starts, counted by a wrapper that
 * logs each one's subcommand and runs the real git.
 */
describe("git processes of a run", () => {
  it("a chain whose stages change nothing starts git only to make its worktree", async () => {
    const h = await harness({ agents: { implementer: async () => ({ text: "nothing to change" }) } });
    const log = join(h.root, "..", "git-subcommands.log");
    const wrapper = join(h.root, "..", "git-wrapper.sh");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -c) skip=1;; *) if [ -z "$skip" ]; then echo "$a" >> "${log}"; break; fi; skip=;; esac; done\nexec git "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    h.deps.git = createGit({ gitPath: wrapper, env: h.env });
    const dir = join(h.root, ".fixpoint", "workflows");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "chain.kdl"), chainWorkflow(6));
    const t = await h.addTask({ workflow: "chain" });

    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(await h.task(t.id)).toMatchObject({ status: "completed" });
    expect((await h.stages(t.id)).filter((s) => s.stageId !== "done")).toHaveLength(6);
    const subcommands = readFileSync(log, "utf8").trim().split("\n");
    // Whether the branch exists, then the worktree: nothing per stage, not even the first.
    expect(subcommands).toEqual(["show-ref", "worktree"]);
  });
});
