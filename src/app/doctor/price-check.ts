import { unpricedModel } from "../../agents/resolver.js";
import type { Config } from "../../config/types.js";
import type { Check } from "./check.js";

/**
 * Names every configured agent whose cost fixpoint computes from its price table but whose model
 * has no price there: its stages would cost $0 and a USD budget could not stop it. A warning, not
 * a failure: the agent works, only its cost is unknown.
 */
export function checkPrices(config: Pick<Config, "agents" | "prices">): Check {
  const missing = Object.values(config.agents)
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((agent) => {
      const model = unpricedModel(agent, config);
      return model === undefined ? [] : [{ agent: agent.name, model }];
    });
  if (missing.length === 0) return { name: "prices", status: "ok", detail: "every agent's cost is known" };
  const models = [...new Set(missing.map((m) => m.model))];
  return {
    name: "prices",
    status: "warn",
    detail: `no known price for ${missing.map((m) => `${m.model} (agent ${m.agent})`).join(", ")}: its cost counts as $0 and a USD budget cannot stop it`,
    fix: `add ${models.map((m) => `\`price "${m}" input=<USD per 1M tokens> output=<USD per 1M tokens>\``).join(" and ")} to fixpoint.kdl`,
  };
}
