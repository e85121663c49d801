import { describe, expect, it } from "vitest";
import { parseCodexLine } from "./codex-stream.js";
import { fixtureLines, foldLines } from "./fixture.js";

const fold = (lines: string[]) => foldLines(lines, parseCodexLine);

describe("Codex stream parser (recorded streams)", () => {
  it("takes the thread id, the final message and the turn usage from a run that ran a command", () => {
    const s = fold(fixtureLines("codex-tool-use.jsonl"));
    expect(s.complete).toBe(true);
    expect(s.error).toBeUndefined();
    expect(s.text).toBe("DONE: the file is written");
    expect(s.sessionId).toBe("01a20124-962f-7110-bb1b-2c22e5c104a3");
    // input_tokens 2500 includes the 200 cached ones.
    expect(s.usage).toEqual({ input: 2300, output: 70, cacheRead: 200, cacheWrite: 0 });
    expect(s.costUsd).toBeUndefined();
    expect(s.toolCalls).toBe(1);
  });

  it("does not treat a warning item of type error as a failure", () => {
    const lines = fixtureLines("codex-structured.jsonl");
    expect(lines.some((l) => l.includes('"type":"error"'))).toBe(true);
    const s = fold(lines);
    expect(s.error).toBeUndefined();
    expect(JSON.parse(s.text)).toMatchObject({ verdict: "request_changes" });
  });

  it("reports turn.failed with the API's message", () => {
    const s = fold(fixtureLines("codex-api-error-400.jsonl"));
    expect(s.error?.message).toContain("prompt is malformed");
    expect(s.complete).toBe(false);
    expect(fold(fixtureLines("codex-api-error-500.jsonl")).error?.message).toMatch(/high demand/);
  });

  it("reports a stream cut off mid-turn as incomplete", () => {
    const s = fold(fixtureLines("codex-hang-truncated.jsonl"));
    expect(s.complete).toBe(false);
    expect(s.error).toBeUndefined();
    expect(s.sessionId).toBeDefined();
  });

  it("ignores unknown event types and reconnect notices", () => {
    const lines = fixtureLines("codex-tool-use.jsonl");
    const noisy = [
      '{"type":"session.configured"}',
      '{"type":"error","message":"Reconnecting... 1/5"}',
      "garbage",
      ...lines,
    ];
    expect(fold(noisy)).toEqual(fold(lines));
  });
});
