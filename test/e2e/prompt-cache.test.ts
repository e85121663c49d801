import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicApiBackend } from "../../src/agents/anthropic-api.js";
import { createOpenAIApiBackend } from "../../src/agents/openai-api.js";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import type { AgentBackend, AgentResolver } from "../../src/domain/agent.js";
import { fixEverything } from "../helpers/agent-replies.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";
import { createFakePromptCache, type FakePromptCache } from "./fake-model/prompt-cache.js";
import { type FakeModel, startFakeModel } from "./fake-model/server.js";

let h: EngineHarness | undefined;
let fake: FakeModel | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = undefined;
  fake = undefined;
});

/** A 200-line change over four files: a diff well past the provider's 1,024-token minimum. */
const implement200: ScriptHandler = (req) => {
  for (const name of ["alpha", "beta", "gamma", "delta"]) {
    const lines = Array.from(
      { length: 50 },
      (_, i) => `export const ${name}_${i} = compute("${name}", ${i});`,
    );
    writeFileSync(join(req.cwd, `src/${name}.js`), `${lines.join("\n")}\n`);
  }
  return { text: "done" };
};

const approve = JSON.stringify({ verdict: "APPROVED", summary: "fine", findings: [], prior: [] });

async function loop(
  backend: (url: string) => AgentBackend,
  cache: FakePromptCache,
  firstByteMs = 300,
): Promise<EngineHarness> {
  fake = await startFakeModel(
    { rules: [], fallback: { text: `\`\`\`json\n${approve}\n\`\`\`` } },
    { cache, firstByteMs, answerDelayMs: 100 },
  );
  const made = await createEngineHarness({
    agents: { implementer: implement200, reviewer: () => ({ text: "unused" }), fixer: fixEverything() },
  });
  const inner = made.deps.agents;
  const reviewer = backend(fake.url);
  const resolver: AgentResolver = {
    resolve: (name) =>
      name === "reviewer" ? { ...inner.resolve(name), backend: reviewer } : inner.resolve(name),
  };
  made.deps.agents = resolver;
  return made;
}

const env = { ANTHROPIC_API_KEY: "test-key", OPENAI_API_KEY: "test-key", PATH: process.env.PATH ?? "" };
const anthropic = (url: string) =>
  createAnthropicApiBackend({ baseUrl: url, model: "claude-sonnet-4-5", deps: { baseEnv: env } });

function reviewBodies(): Record<string, unknown>[] {
  return (fake?.requests ?? [])
    .filter((r) => r.conversation?.lastUserText.includes("You are reviewing the work"))
    .map((r) => r.body as Record<string, unknown>);
}

describe("prompt caching against a fake provider with real cache semantics", () => {
  it("anthropic: marks the shared prefix; the first reviewer writes it, the others read it", async () => {
    const cache = createFakePromptCache();
    h = await loop(anthropic, cache);
    const t = await h.addTask();
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");

    const bodies = reviewBodies();
    expect(bodies).toHaveLength(3);
    const prefixes = bodies.map((b) => {
      const [message] = b.messages as { content: { text: string; cache_control?: unknown }[] }[];
      const marked = (message?.content ?? []).filter((c) => c.cache_control !== undefined);
      expect(marked).toHaveLength(1);
      return marked[0]?.text;
    });
    expect(new Set(prefixes).size).toBe(1);

    // One write, two reads of the same prefix.
    const charges = cache.charges.filter((c) => c.api === "anthropic");
    expect(charges.map((c) => c.cacheWrite > 0)).toEqual([true, false, false]);
    expect(charges[1]?.cacheRead).toBe(charges[0]?.cacheWrite);
    expect(charges[2]?.cacheRead).toBe(charges[0]?.cacheWrite);

    // Cache tokens are accounted per stage and priced with the model's cache prices.
    const reviews = (await h.stages(t.id)).filter((s) => s.stageId.startsWith("review_"));
    expect(reviews.map((s) => s.usage.cacheRead > 0).sort()).toEqual([false, true, true]);
    const writer = reviews.find((s) => s.usage.cacheWrite > 0);
    const reader = reviews.find((s) => s.usage.cacheRead > 0);
    // claude-sonnet-4: $3 in, $3.75 write, $0.30 read, $15 out per million tokens.
    const expected = (u: { input: number; output: number; cacheRead: number; cacheWrite: number }) =>
      (u.input * 3 + u.cacheWrite * 3.75 + u.cacheRead * 0.3 + u.output * 15) / 1e6;
    expect(writer?.costUsd).toBeCloseTo(
      expected(writer?.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
      10,
    );
    expect(reader?.costUsd).toBeCloseTo(
      expected(reader?.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
      10,
    );
    expect(reader?.costUsd ?? 1).toBeLessThan((writer?.costUsd ?? 0) / 3);
  });

  it("anthropic: reviewers started at the same moment all miss (why the first goes alone)", async () => {
    const cache = createFakePromptCache();
    // The same backend, without the response-start signal: nothing waits. The provider takes 2 s
    // to begin answering, longer than the three reviewers take to send their requests.
    h = await loop((url) => ({ ...anthropic(url), reportsResponseStart: false }), cache, 2000);
    await h.addTask();
    await h.runAll();
    const charges = cache.charges.filter((c) => c.api === "anthropic");
    expect(charges).toHaveLength(3);
    expect(charges.every((c) => c.cacheWrite > 0 && c.cacheRead === 0)).toBe(true);
  });

  it("openai: one prompt_cache_key per task and cycle; the later reviewers read the shared prefix", async () => {
    const cache = createFakePromptCache();
    h = await loop(
      (url) => createOpenAIApiBackend({ baseUrl: `${url}/v1`, model: "gpt-5", deps: { baseEnv: env } }),
      cache,
    );
    const t = await h.addTask();
    await h.runAll();
    const keys = reviewBodies().map((b) => b.prompt_cache_key);
    expect(keys).toEqual([`fixpoint:${t.id}:0`, `fixpoint:${t.id}:0`, `fixpoint:${t.id}:0`]);
    const charges = cache.charges.filter((c) => c.api === "openai");
    expect(charges[0]?.cacheRead).toBe(0);
    for (const later of charges.slice(1)) {
      // At least 90 % of a later reviewer's prompt is read from the cache.
      expect(later.cacheRead / (later.cacheRead + later.input)).toBeGreaterThanOrEqual(0.9);
    }
  });
});
