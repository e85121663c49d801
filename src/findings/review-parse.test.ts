import { describe, expect, it } from "vitest";
import { effectiveVerdict, parseReviewOutput } from "./review-parse.js";

const json = (o: unknown) => `\`\`\`json\n${JSON.stringify(o, null, 2)}\n\`\`\``;

describe("parseReviewOutput fallback chain", () => {
  const structured = { verdict: "APPROVED", summary: "fine", findings: [], prior: [] };

  it("prefers structured output over anything in the text", () => {
    const text = json({ verdict: "CHANGES_REQUESTED", findings: [] });
    const r = parseReviewOutput(text, structured);
    expect(r).toMatchObject({
      ok: true,
      via: "structured",
      output: { verdict: "APPROVED", summary: "fine" },
    });
  });

  it("falls back to the LAST fenced json block when structured output is invalid", () => {
    const text = [
      "Example of the format:",
      json({ verdict: "APPROVED", findings: [] }),
      "My actual review:",
      json({
        verdict: "CHANGES_REQUESTED",
        summary: "s",
        findings: [{ severity: "P1", title: "Bug", body: "b" }],
      }),
    ].join("\n");
    const r = parseReviewOutput(text, { nonsense: true });
    expect(r.ok && r.via).toBe("json");
    expect(r.ok && r.output.verdict).toBe("CHANGES_REQUESTED");
    expect(r.ok && r.output.findings).toHaveLength(1);
  });

  it("accepts a reply that is only a bare JSON object", () => {
    const r = parseReviewOutput(JSON.stringify({ verdict: "approved", findings: [] }));
    expect(r).toMatchObject({
      ok: true,
      via: "json",
      output: { verdict: "APPROVED", findings: [], prior: [] },
    });
  });

  it("survives a body containing a code fence inside the JSON", () => {
    const body = "Use this:\n```ts\nconst x = 1;\n```";
    const r = parseReviewOutput(
      json({ verdict: "CHANGES_REQUESTED", findings: [{ title: "T", body, severity: "P2" }] }),
    );
    expect(r.ok && r.output.findings[0]?.body).toBe(body);
  });

  it("uses the verdict line when there is no JSON, with no findings", () => {
    for (const line of [
      "**Verdict: CHANGES_REQUESTED**",
      "Verdict: CHANGES_REQUESTED",
      "## Verdict: changes requested",
    ]) {
      const r = parseReviewOutput(`The code has issues.\n\n${line}\n`);
      expect(r).toMatchObject({
        ok: true,
        via: "verdict-line",
        output: { verdict: "CHANGES_REQUESTED", findings: [] },
      });
    }
  });

  it("reports unparsable output with what it tried", () => {
    const r = parseReviewOutput("Looks mostly fine to me, a few nits.");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^review output unparsable: .*no JSON block.*no verdict line/);
  });

  it("a broken JSON block with a verdict line still parses via the verdict line", () => {
    const r = parseReviewOutput("```json\n{ verdict: oops\n```\n**Verdict: APPROVED**");
    expect(r).toMatchObject({ ok: true, via: "verdict-line", output: { verdict: "APPROVED" } });
  });
});

describe("lenient findings", () => {
  it("accepts severity aliases, description/file_path, string lines, and defaults the rest", () => {
    const r = parseReviewOutput(
      json({
        verdict: "CHANGES_REQUESTED",
        findings: [
          {
            severity: "major",
            title: "SQL injection",
            description: "d",
            file_path: "src/db.ts",
            line_start: "87",
            line_end: "92",
          },
          { severity: "nit", title: "Naming", body: "b", file: "src/a.ts" },
        ],
        prior: [
          { id: "f-3", status: "fixed" },
          { id: "F-4", status: "still open", note: "no" },
          { id: "F-5", status: "??" },
        ],
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.output.findings[0]).toEqual({
      severity: "P1",
      category: "general",
      title: "SQL injection",
      body: "d",
      file: "src/db.ts",
      lineStart: 87,
      lineEnd: 92,
      suggestedFix: null,
    });
    expect(r.output.findings[1]).toMatchObject({ severity: "P3", lineStart: null, lineEnd: null });
    expect(r.output.prior).toEqual([
      { id: "F-3", status: "resolved" },
      { id: "F-4", status: "still_open", note: "no" },
    ]);
  });

  it("rejects a JSON review without a verdict", () => {
    const r = parseReviewOutput(json({ findings: [] }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/verdict/);
  });
});

describe("effectiveVerdict", () => {
  const finding = (severity: "P1" | "P3") => ({
    severity,
    category: "c",
    title: "t",
    body: "",
    file: null,
    lineStart: null,
    lineEnd: null,
    suggestedFix: null,
  });

  it("turns an approval carrying blocking findings into CHANGES_REQUESTED", () => {
    expect(
      effectiveVerdict({ verdict: "APPROVED", summary: "", findings: [finding("P1")], prior: [] }, "P1"),
    ).toBe("CHANGES_REQUESTED");
    expect(
      effectiveVerdict(
        { verdict: "APPROVED_WITH_FOLLOWUPS", summary: "", findings: [finding("P3")], prior: [] },
        "P1",
      ),
    ).toBe("APPROVED_WITH_FOLLOWUPS");
    expect(
      effectiveVerdict(
        { verdict: "NEEDS_DISCUSSION", summary: "", findings: [finding("P1")], prior: [] },
        "P1",
      ),
    ).toBe("NEEDS_DISCUSSION");
  });
});
