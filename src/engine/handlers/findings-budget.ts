import type { Config } from "../../config/types.js";
import type { Finding } from "../../domain/types.js";
import { type Rendered, renderFindingsWithin, renderPriorWithin } from "../../findings/render.js";
import { byteSize } from "../../findings/select.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext } from "../deps.js";
import { type PromptBudget, promptBudgetFor } from "../prompt-budget.js";

/** Renders the prompt with the findings section set to the given text. */
type RenderWith = (section: string) => Promise<string>;

/** The configured agent behind a stage, as `runAgentTurn` resolves it. */
export function agentOf(stage: StageDef, ctx: StageContext): string {
  const name = stage.agent ?? "implementer";
  return ctx.task.agents[name] ?? name;
}

/**
 * Bytes for the findings section: what the prompt budget leaves after the rest of the prompt, but
 * never less than a quarter of the budget (the diff is bounded on its own and may take the rest).
 */
async function budgetFor(
  config: Config,
  agent: string,
  render: RenderWith,
): Promise<{ budget: PromptBudget; bytes: number }> {
  const budget = promptBudgetFor(config, agent);
  const rest = byteSize(await render(""));
  return { budget, bytes: Math.max(Math.floor(budget.bytes / 4), budget.bytes - rest) };
}

/** The fixer's "Outstanding Review Findings" within the prompt budget (issue 10). */
export async function outstandingWithin(
  stage: StageDef,
  ctx: StageContext,
  findings: Finding[],
  render: RenderWith,
): Promise<Rendered> {
  const { config } = ctx.deps;
  const { budget, bytes } = await budgetFor(config, agentOf(stage, ctx), render);
  const tokenBytes = config.defaults.findingsTokenBudget * 4;
  return renderFindingsWithin(Math.min(bytes, tokenBytes), findings, {
    blockingSeverity: config.defaults.blockingSeverity,
    taskId: ctx.task.id,
    resolvedIds: ctx.registry.resolvedIds(),
    budgetKey: tokenBytes < bytes ? "defaults findings-token-budget" : budget.key,
  });
}

/** The reviewer's list of earlier findings within the prompt budget; `shown` is what it must answer. */
export async function priorWithin(
  stage: StageDef,
  ctx: StageContext,
  findings: Finding[],
  render: RenderWith,
): Promise<{ text: string; shown: string[] }> {
  const { config } = ctx.deps;
  const { budget, bytes } = await budgetFor(config, agentOf(stage, ctx), render);
  const out = renderPriorWithin(bytes, findings, {
    blockingSeverity: config.defaults.blockingSeverity,
    taskId: ctx.task.id,
    raisedBy: `review:${stage.id}`,
    resolvedIds: ctx.registry.resolvedIds(),
    budgetKey: budget.key,
  });
  return { text: out.text || "There are no earlier findings.", shown: out.shown };
}
