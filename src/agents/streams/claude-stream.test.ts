import { describe, expect, it } from "vitest";
import { parseClaudeLine } from "./claude-stream.js";
import { fixtureLines, foldLines } from "./fixture.js";

const fold = (lines: string[]) => foldLines(lines, parseClaudeLine);

describe("Claude Code stream parser (recorded streams)", () => {
  it("takes text, session, usage, cost and turns from a run that used the Write tool", () => {
    const s = fold(fixtureLines("claude-tool-use.jsonl"));
    expect(s.complete).toBe(true);
    expect(s.error).toBeUndefined();
    expect(s.text).toBe("DONE: the file is written");
    expect(s.sessionId).toBe("a72a60ab-0a0a-4056-96c9-badcd1c70092");
    expect(s.usage).toEqual({ input: 2300, output: 70, cacheRead: 200, cacheWrite: 10 });
    expect(s.costUsd).toBe(0.01069);
    expect(s.numTurns).toBe(2);
    expect(s.toolCalls).toBe(1);
    const tools = fixtureLines("claude-tool-use.jsonl")
      .flatMap(parseClaudeLine)
      .filter((e) => e.type === "tool");
    expect(tools[0]).toMatchObject({ type: "tool", name: "Write" });
  });

  it("returns structured_output for a --json-schema run", () => {
    const s = fold(fixtureLines("claude-structured.jsonl"));
    expect(s.structured).toEqual({
      verdict: "request_changes",
      findings: [{ severity: "major", title: "missing test", file: "a.ts" }],
    });
  });

  it("treats is_error as failure even though subtype says success", () => {
    const lines = fixtureLines("claude-api-error-400.jsonl");
    expect(lines.some((l) => l.includes('"subtype":"success"') && l.includes('"is_error":true'))).toBe(true);
    const s = fold(lines);
    expect(s.error).toEqual({ message: "API Error: 400 prompt is malformed", status: 400 });
    expect(s.complete).toBe(true);
  });

  it("reports a stream cut off before its result as incomplete", () => {
    const lines = fixtureLines("claude-tool-use.jsonl").filter((l) => !l.includes('"type":"result"'));
    const s = fold(lines);
    expect(s.complete).toBe(false);
    expect(s.text).toBe("DONE: the file is written");
    expect(fold(fixtureLines("claude-hang-truncated.jsonl")).complete).toBe(false);
  });

  it("ignores unknown event types, garbage lines and a half-written last line", () => {
    const lines = fixtureLines("claude-tool-use.jsonl");
    const noisy = [
      '{"type":"rate_limit_event","info":{}}',
      "not json at all",
      "[1,2]",
      ...lines,
      '{"type":"res',
    ];
    expect(fold(noisy)).toEqual(fold(lines));
  });

  it("reads fields by name, not by position", () => {
    const reordered =
      '{"num_turns":3,"total_cost_usd":0.5,"is_error":false,"result":"hi","session_id":"s1","type":"result"}';
    expect(fold([reordered])).toMatchObject({
      text: "hi",
      sessionId: "s1",
      costUsd: 0.5,
      numTurns: 3,
      complete: true,
    });
  });
});
