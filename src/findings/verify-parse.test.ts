import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseVerifyOutput } from "./verify-parse.js";

describe("parseVerifyOutput", () => {
  test("reads a fenced reply with common synonyms and normalised ids", () => {
    const text =
      'Checked.\n```json\n{"verdicts": [{"id": "1", "verdict": "Confirmed", "evidence": "test fails"}, {"finding": "F-2", "status": "false positive", "reason": "guarded on line 3"}, {"id": "F-3", "verdict": "not a bug"}]}\n```';
    expect(parseVerifyOutput(text)).toEqual({
      ok: true,
      verdicts: [
        { id: "F-1", verdict: "confirmed", evidence: "test fails" },
        { id: "F-2", verdict: "refuted", evidence: "guarded on line 3" },
      ],
    });
  });

  test("prefers structured output and rejects replies without a verdicts array", () => {
    expect(
      parseVerifyOutput("", { verdicts: [{ id: "F-4", verdict: "refuted", evidence: "dead code" }] }),
    ).toEqual({
      ok: true,
      verdicts: [{ id: "F-4", verdict: "refuted", evidence: "dead code" }],
    });
    expect(parseVerifyOutput("no json here").ok).toBe(false);
    expect(parseVerifyOutput('{"verdict": "APPROVED"}').ok).toBe(false);
  });

  test("never throws, and a refutation always carries evidence", () => {
    const item = fc.record({
      id: fc.oneof(fc.string(), fc.integer()),
      verdict: fc.oneof(fc.constantFrom("confirmed", "refuted", "false_positive", "real"), fc.string()),
      evidence: fc.oneof(fc.string(), fc.constant("")),
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(item).map((verdicts) => `\`\`\`json\n${JSON.stringify({ verdicts })}\n\`\`\``),
        ),
        (text) => {
          const r = parseVerifyOutput(text);
          if (r.ok) for (const v of r.verdicts) if (v.verdict === "refuted") expect(v.evidence).not.toBe("");
        },
      ),
      { numRuns: 300 },
    );
  });
});
