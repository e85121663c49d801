import { describe, expect, it } from "vitest";
import { fixtureLines, foldLines } from "./fixture.js";
import { parsePiLine } from "./pi-stream.js";

const fold = (lines: string[]) => foldLines(lines, parsePiLine);

describe("pi stream parser (recorded streams)", () => {
  it("sums usage and cost of every message_end in a run that used the write tool", () => {
    const s = fold(fixtureLines("pi-tool-use.jsonl"));
    expect(s.complete).toBe(true);
    expect(s.error).toBeUndefined();
    expect(s.text).toBe("DONE: the file is written");
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.usage).toEqual({ input: 2300, output: 70, cacheRead: 200, cacheWrite: 10 });
    // models.json prices: $3 in, $15 out, $0.3 cache read, $3.75 cache write per million.
    expect(s.costUsd).toBeCloseTo((2300 * 3 + 70 * 15 + 200 * 0.3 + 10 * 3.75) / 1e6, 12);
    expect(s.toolCalls).toBe(1);
    expect(s.turns).toBe(2);
  });

  it("reports stopReason error with the API's message", () => {
    const s = fold(fixtureLines("pi-api-error-400.jsonl"));
    expect(s.error?.message).toMatch(/^400 .*prompt is malformed/);
    expect(s.text).toBe("");
  });

  it("reports a stream cut off before agent_end as incomplete", () => {
    expect(fold(fixtureLines("pi-hang-truncated.jsonl")).complete).toBe(false);
    const lines = fixtureLines("pi-tool-use.jsonl").filter((l) => !l.startsWith('{"type":"agent_end"'));
    expect(fold(lines).complete).toBe(false);
  });

  it("ignores unknown event types and message_update noise", () => {
    const lines = fixtureLines("pi-resume.jsonl");
    const noisy = ['{"type":"queue_update","steering":[],"followUp":[]}', "{oops", ...lines];
    const s = fold(noisy);
    expect(s).toEqual(fold(lines));
    expect(s.text).toBe("you said PINEAPPLE");
  });
});
