import { describe, expect, it } from "vitest";
import { parseFixReport } from "./fix-parse.js";
import { parseReviewOutput } from "./review-parse.js";
import { FIX_REPORT_SCHEMA, REVIEW_OUTPUT_SCHEMA } from "./schemas.js";

/** Strict structured-output modes need every object closed and every property required. */
function strictProblems(schema: unknown, path = "$"): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  if (s.type === "object") {
    const props = Object.keys((s.properties as object) ?? {});
    if (s.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    if (JSON.stringify([...((s.required as string[]) ?? [])].sort()) !== JSON.stringify(props.sort())) {
      out.push(`${path}: required must list every property`);
    }
    for (const [k, v] of Object.entries((s.properties as object) ?? {}))
      out.push(...strictProblems(v, `${path}.${k}`));
  }
  if (s.items) out.push(...strictProblems(s.items, `${path}[]`));
  return out;
}

describe("structured-output schemas", () => {
  it("are strict: closed objects, all properties required", () => {
    expect(strictProblems(REVIEW_OUTPUT_SCHEMA)).toEqual([]);
    expect(strictProblems(FIX_REPORT_SCHEMA)).toEqual([]);
  });

  it("describe exactly what the parsers accept (nulls included)", () => {
    const review = {
      verdict: "CHANGES_REQUESTED",
      summary: "s",
      findings: [
        {
          severity: "P1",
          category: "c",
          title: "t",
          body: "b",
          file: null,
          line_start: null,
          line_end: null,
          suggested_fix: null,
        },
      ],
      prior: [{ id: "F-1", status: "resolved", note: null }],
    };
    const r = parseReviewOutput("", review);
    expect(r).toMatchObject({
      ok: true,
      via: "structured",
      output: { prior: [{ id: "F-1", status: "resolved" }] },
    });
    const fix = parseFixReport("", {
      summary: "",
      findings: [{ id: "F-1", status: "fixed", justification: "j", reason: null }],
    });
    expect(fix).toEqual({
      ok: true,
      report: { summary: "", entries: [{ id: "F-1", status: "fixed", justification: "j" }] },
    });
  });
});
