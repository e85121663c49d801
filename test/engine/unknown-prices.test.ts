import { afterEach, describe, expect, it } from "vitest";
import type { AgentResolver } from "../../src/domain/agent.js";
import type { Budget } from "../../src/domain/types.js";
import {
  approveAll,
  byStage,
  finding,
  fixEverything,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The harness's agents, with the reviewer on a model the price table does not know. */
function unpricedReviewer(inner: AgentResolver): AgentResolver {
  return {
    resolve: (name) => {
      const r = inner.resolve(name);
      return name === "reviewer" ? { ...r, model: "gpt-9-preview", unpricedModel: "gpt-9-preview" } : r;
    },
  };
}

const spent = { usage: { input: 50_000, output: 1000 } };

async function harness(): Promise<EngineHarness> {
  const made = await createEngineHarness({
    agents: {
      implementer: implementFeature({ usage: { input: 1000, output: 100 }, costUsd: 0.01 }),
      // The unpriced reviewer spends tokens that cost nothing as far as fixpoint can tell.
      reviewer: byStage(
        {
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [finding("P1", "double() ignores strings")], [], spent)
              : approveAll(spent)(req, { invocation: 1 }),
        },
        approveAll(spent),
      ),
      fixer: fixEverything(),
    },
  });
  made.deps.agents = unpricedReviewer(made.deps.agents);
  return made;
}

async function addTask(p: EngineHarness, budget: Budget) {
  return p.store.createTask(
    {
      type: "implement",
      title: "Add double()",
      prompt: "Add a function double(x) in src/feature.js.",
      workflow: p.config.defaults.workflow,
      repo: p.root,
      baseBranch: "main",
      maxCycles: 3,
      budget,
      agents: {},
    },
    Date.now(),
  );
}

const notices = (p: EngineHarness) =>
  p.engineEvents.flatMap((e) => (e.type === "notice" && /no known price/.test(e.message) ? [e.message] : []));

describe("a model without a known price", () => {
  it("is warned about once per run, naming the model and how to price it", async () => {
    h = await harness();
    const t = await addTask(h, {});
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    const said = notices(h);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("gpt-9-preview (agent reviewer)");
    expect(said[0]).toContain('price "gpt-9-preview" input=');
  });

  it("makes a USD budget fall back to the task's token budget", async () => {
    h = await harness();
    // $5 would never run out (the reviewers' 150k tokens cost $0 here); 60k tokens stop the fix.
    const t = await addTask(h, { usd: 5, tokens: 60_000 });
    await h.runAll();
    const task = await h.task(t.id);
    expect(task.finalVerdict).toBe("BUDGET_EXHAUSTED");
    expect(h.callsOf("fixer")).toHaveLength(0);
    expect(notices(h)[0]).toMatch(/\$5 budget cannot see its cost: the task's token budget \(60000 tokens\)/);
  });

  it("refuses to start a task whose only budget is in USD, saying which model and how to price it", async () => {
    h = await harness();
    const t = await addTask(h, { usd: 5 });
    await h.runAll();
    const task = await h.task(t.id);
    expect(task.status).toBe("needs_human");
    expect(task.reason).toContain("no known price for gpt-9-preview (agent reviewer)");
    expect(task.reason).toContain('price "gpt-9-preview"');
    expect(h.calls).toHaveLength(0);
  });
});
