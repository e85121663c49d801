import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../config/types.js";
import { checkPrices } from "./price-check.js";

function agent(name: string, over: Partial<AgentConfig>): AgentConfig {
  return { name, backend: "codex", timeoutMs: 60_000, args: [], env: {}, ...over };
}

describe("checkPrices", () => {
  it("warns about each model fixpoint cannot price and says how to add its price", () => {
    const check = checkPrices({
      agents: {
        reviewer: agent("reviewer", { backend: "openai", model: "gpt-9-preview" }),
        fixer: agent("fixer", { backend: "codex", model: "gpt-5.5" }),
        implementer: agent("implementer", { backend: "claude-code", model: "mystery" }),
      },
      prices: {},
    });
    expect(check.status).toBe("warn");
    expect(check.detail).toContain("gpt-9-preview (agent reviewer)");
    expect(check.detail).not.toContain("gpt-5.5");
    expect(check.detail).not.toContain("mystery");
    expect(check.fix).toContain('price "gpt-9-preview" input=');
  });

  it("is ok when the config prices the model", () => {
    const check = checkPrices({
      agents: { reviewer: agent("reviewer", { backend: "openai", model: "gpt-9-preview" }) },
      prices: { "gpt-9-preview": { inputPerM: 1, outputPerM: 2 } },
    });
    expect(check.status).toBe("ok");
  });
});
