import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentConfig, Config } from "../config/types.js";
import { FixpointError } from "../errors.js";
import { createAgentResolver, defaultFactories, unpricedModel } from "./resolver.js";

const dir = mkdtempSync(join(tmpdir(), "fixpoint-resolver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function agentConfig(name: string, over: Partial<AgentConfig>): AgentConfig {
  return { name, backend: "command", timeoutMs: 60_000, args: [], env: {}, ...over };
}

function config(agents: AgentConfig[]): Config {
  return {
    agents: Object.fromEntries(agents.map((a) => [a.name, a])),
    defaults: {
      workflow: "implement-review",
      maxCycles: 3,
      blockingSeverity: "P1",
      budget: {},
      followups: true,
      findingsTokenBudget: 4000,
    },
    gates: [],
    database: { url: "sqlite" },
    worktrees: dir,
    prices: {},
    github: null,
    sources: [],
  };
}

async function thrown(p: Promise<unknown> | (() => unknown)): Promise<FixpointError> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    if (e instanceof FixpointError) return e;
    throw e;
  }
  throw new Error("expected a FixpointError");
}

describe("createAgentResolver", () => {
  it("resolves configured agents with their settings and applies role overrides", async () => {
    const cfg = config([
      agentConfig("implementer", { command: ["true"], model: "big", args: ["--x"], env: { A: "1" } }),
      agentConfig("fast", { command: ["true"], timeoutMs: 5000 }),
    ]);
    const resolver = await createAgentResolver(cfg, {
      factories: defaultFactories(),
      overrides: { reviewer: "fast" },
    });
    const impl = resolver.resolve("implementer");
    expect(impl).toMatchObject({ name: "implementer", model: "big", timeoutMs: 60_000, env: { A: "1" } });
    expect(impl.extraArgs).toEqual(["--x"]);
    expect(impl.backend.kind).toBe("command");
    const reviewer = resolver.resolve("reviewer");
    expect(reviewer).toMatchObject({ name: "fast", timeoutMs: 5000 });
    expect(reviewer.model).toBeUndefined();
  });

  it("builds each backend once, up front, and shares it between resolutions", async () => {
    const script = join(dir, "count.mjs");
    writeFileSync(script, "export default (_req, ctx) => ({ text: String(ctx.invocation) });\n");
    let built = 0;
    const scripted = defaultFactories().scripted;
    if (!scripted) throw new Error("the scripted factory is missing");
    const factories = {
      ...defaultFactories(),
      scripted: (a: AgentConfig) => {
        built += 1;
        return scripted(a);
      },
    };
    const cfg = config([agentConfig("reviewer", { backend: "scripted", script })]);
    const resolver = await createAgentResolver(cfg, { factories });
    expect(built).toBe(1);
    expect(resolver.resolve("reviewer").backend).toBe(resolver.resolve("reviewer").backend);
    expect(built).toBe(1);
  });

  it("names the configured agents when one is unknown", async () => {
    const resolver = await createAgentResolver(config([agentConfig("implementer", { command: ["true"] })]), {
      factories: defaultFactories(),
    });
    const err = await thrown(() => resolver.resolve("reviewer"));
    expect(err.code).toBe("config");
    expect(err.message).toBe("unknown agent `reviewer` (configured: implementer)");
  });

  it("rejects an override that points at no configured agent", async () => {
    const cfg = config([agentConfig("implementer", { command: ["true"] })]);
    const err = await thrown(
      createAgentResolver(cfg, { factories: defaultFactories(), overrides: { implementer: "x" } }),
    );
    expect(err.message).toContain("unknown agent `x`");
  });

  it("reports a backend this build lacks only when the agent is used", async () => {
    const cfg = config([
      agentConfig("implementer", { command: ["true"] }),
      agentConfig("reviewer", { backend: "codex" }),
    ]);
    const resolver = await createAgentResolver(cfg, { factories: defaultFactories() });
    expect(resolver.resolve("implementer").backend.kind).toBe("command");
    const err = await thrown(() => resolver.resolve("reviewer"));
    expect(err.code).toBe("config");
    expect(err.message).toContain("backend `codex` is not available in this build");
  });

  it("fails early on a command agent without a command or a scripted agent without a script", async () => {
    const noCommand = await thrown(
      createAgentResolver(config([agentConfig("a", {})]), { factories: defaultFactories() }),
    );
    expect(noCommand.message).toContain("has no command");
    const noScript = await thrown(
      createAgentResolver(config([agentConfig("b", { backend: "scripted" })]), {
        factories: defaultFactories(),
      }),
    );
    expect(noScript.message).toContain("has no script");
  });
});

describe("unpricedModel", () => {
  const withPrices = { prices: { "house-model": { inputPerM: 1, outputPerM: 2 } } };

  it("names the model of a backend priced by the table when the table has no price for it", () => {
    expect(unpricedModel(agentConfig("r", { backend: "openai", model: "mystery-1" }), withPrices)).toBe(
      "mystery-1",
    );
    expect(unpricedModel(agentConfig("r", { backend: "codex" }), withPrices)).toBe("codex's default model");
  });

  it("is silent for priced models and for backends that report their own cost", () => {
    expect(
      unpricedModel(agentConfig("r", { backend: "codex", model: "gpt-5.5" }), withPrices),
    ).toBeUndefined();
    expect(
      unpricedModel(agentConfig("r", { backend: "anthropic", model: "house-model" }), withPrices),
    ).toBeUndefined();
    expect(
      unpricedModel(agentConfig("r", { backend: "claude-code", model: "mystery-1" }), withPrices),
    ).toBeUndefined();
    expect(
      unpricedModel(agentConfig("r", { backend: "command", command: ["true"] }), withPrices),
    ).toBeUndefined();
  });

  it("is carried by the resolved agent", async () => {
    const cfg = config([agentConfig("reviewer", { backend: "openai", model: "mystery-1" })]);
    const resolver = await createAgentResolver(cfg, {
      factories: {
        openai: () => ({
          kind: "openai",
          supportsSessions: false,
          run: async () => {
            throw new Error("not run");
          },
        }),
      },
    });
    expect(resolver.resolve("reviewer").unpricedModel).toBe("mystery-1");
  });
});
