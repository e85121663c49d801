import type { AgentResolver } from "../domain/agent.js";
import type { Budget, Task } from "../domain/types.js";
import { agentsOf } from "../workflow/agents-of.js";
import type { Workflow } from "../workflow/types.js";

/**
 * Known costs or a clear warning (issue 16, item 5). Before a run starts, every agent its
 * workflow uses is resolved; an agent whose backend takes its cost from the price table and
 * whose model has no price there would cost $0 silently. The run is then told once, and a USD
 * budget that cannot see those costs is not trusted: the task falls back to its token budget,
 * or, with none, refuses to start. Pure: the engine emits the notice and acts on the decision.
 */
export interface PricingCheck {
  /** Agents whose model has no known price, in workflow order, each once. */
  unpriced: { agent: string; model: string }[];
  /** The budget the run enforces (the task's own, or its tokens only when USD is blind). */
  budget: Budget;
  /** One notice for the run, or null when every cost is known. */
  notice: string | null;
  /** Why the task must not start, or null. */
  refuse: string | null;
}

export function checkPricing(workflow: Workflow, task: Task, agents: AgentResolver): PricingCheck {
  const unpriced: PricingCheck["unpriced"] = [];
  for (const name of agentsOf(workflow)) {
    let model: string | undefined;
    try {
      model = agents.resolve(task.agents[name] ?? name).unpricedModel;
    } catch {
      // An agent that does not resolve fails at its own stage, with its own message.
      continue;
    }
    if (model !== undefined) unpriced.push({ agent: name, model });
  }
  if (unpriced.length === 0) return { unpriced, budget: task.budget, notice: null, refuse: null };
  const models = [...new Set(unpriced.map((u) => u.model))];
  const who = unpriced.map((u) => `${u.model} (agent ${u.agent})`).join(", ");
  const how = `to price ${models.length === 1 ? "it" : "them"}, add ${models
    .map((m) => `\`price "${m}" input=<USD per 1M tokens> output=<USD per 1M tokens>\``)
    .join(" and ")} to fixpoint.kdl`;
  const { usd, tokens } = task.budget;
  if (usd === undefined) {
    return {
      unpriced,
      budget: task.budget,
      notice: `no known price for ${who}: its cost counts as $0; ${how}`,
      refuse: null,
    };
  }
  if (tokens !== undefined) {
    return {
      unpriced,
      budget: { tokens },
      notice: `no known price for ${who}, so the $${usd} budget cannot see its cost: the task's token budget (${tokens} tokens) limits it instead; ${how}`,
      refuse: null,
    };
  }
  return {
    unpriced,
    budget: task.budget,
    notice: null,
    refuse: `the task has a $${usd} budget but no known price for ${who}, so the budget could not stop it; ${how}, or give the task a token budget`,
  };
}
