import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicBody } from "./anthropic-api.js";
import { promptCacheKey, promptPieces } from "./cache-breaks.js";
import { openaiBody } from "./openai-api.js";

const req = (prompt: string, cacheBreaks?: number[]) => ({ prompt, ...(cacheBreaks ? { cacheBreaks } : {}) });

describe("promptPieces", () => {
  it("cuts at the breaks and keeps only the last ones past the provider's limit", () => {
    expect(promptPieces(req("aaabbbccc", [3, 6]), 4)).toEqual([
      { text: "aaa", cacheBreak: true },
      { text: "bbb", cacheBreak: true },
      { text: "ccc", cacheBreak: false },
    ]);
    expect(promptPieces(req("aaabbbccc", [3, 6]), 1)).toEqual([
      { text: "aaabbb", cacheBreak: true },
      { text: "ccc", cacheBreak: false },
    ]);
  });

  it("drops offsets that are out of range, out of order or at zero", () => {
    expect(promptPieces(req("abc", [0, 5, 2, 1]), 4)).toEqual([
      { text: "ab", cacheBreak: true },
      { text: "c", cacheBreak: false },
    ]);
  });

  it("always reassembles the prompt exactly (property)", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.integer({ min: -2, max: 60 })),
        fc.integer({ min: 1, max: 4 }),
        (p, b, n) => {
          const pieces = promptPieces(req(p, b), n);
          expect(pieces.map((x) => x.text).join("")).toBe(p);
          expect(pieces.filter((x) => x.cacheBreak).length).toBeLessThanOrEqual(n);
        },
      ),
    );
  });
});

const base = {
  agent: "reviewer",
  purpose: "review" as const,
  taskId: "T-7",
  stageId: "review_code",
  cycle: 2,
  cwd: "/tmp",
  timeoutMs: 1000,
  env: {},
  signal: new AbortController().signal,
};

describe("request bodies", () => {
  it("anthropic: a cache_control on the block that ends the shared prefix, a plain string without breaks", () => {
    const marked = anthropicBody(
      { ...base, prompt: "SHARED|focus", cacheBreaks: [7] },
      "claude-sonnet-4-5",
      100,
    );
    expect(marked.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "SHARED|", cache_control: { type: "ephemeral" } },
          { type: "text", text: "focus" },
        ],
      },
    ]);
    const plain = anthropicBody({ ...base, prompt: "hello" }, "claude-sonnet-4-5", 100);
    expect(plain.messages).toEqual([{ role: "user", content: "hello" }]);
  });

  it("openai: the same prompt_cache_key for every request of one task and cycle", () => {
    const a = openaiBody({ ...base, prompt: "x", cacheBreaks: [1] }, "gpt-5", "responses");
    const b = openaiBody(
      { ...base, stageId: "review_tests", prompt: "y", cacheBreaks: [1] },
      "gpt-5",
      "chat",
    );
    expect(a.prompt_cache_key).toBe("fixpoint:T-7:2");
    expect(b.prompt_cache_key).toBe(promptCacheKey({ taskId: "T-7", cycle: 2 }));
    expect(
      openaiBody({ ...base, cycle: 3, prompt: "x", cacheBreaks: [1] }, "gpt-5", "responses").prompt_cache_key,
    ).toBe("fixpoint:T-7:3");
  });
});
