import { describe, expect, it } from "vitest";
import type { RawFinding } from "../../domain/types.js";
import { applyEffect } from "../../engine/effects.js";
import { initialRunState } from "../../engine/state.js";
import { Registry } from "../../findings/registry.js";

const raw = (title: string, line: number): RawFinding => ({
  severity: "P1",
  category: "pr-comment",
  title,
  body: title,
  file: "src/app.js",
  lineStart: line,
  lineEnd: line,
  suggestedFix: null,
});

/** The "findings" effect as the ingest stage uses it: one source and author per PR thread. */
describe("findings effect with per-thread origins", () => {
  it("records each thread as its finding's source with its author, and resolves findings whose threads were resolved", () => {
    const registry = Registry.load("pr-1-cycle-1", [], { blockingSeverity: "P2", now: () => 1 });
    const state = initialRunState("ingest");
    applyEffect(
      {
        type: "findings",
        source: "pr:1",
        findings: [raw("Validate the input", 2), raw("Log the failure", 40)],
        origins: [
          { source: "pr:PRRT_1", author: "alice" },
          { source: "pr:PRRT_2", author: "coderabbitai" },
        ],
      },
      registry,
      state,
      { blockingSeverity: "P2" },
    );
    expect(registry.all().map((f) => [f.id, f.sources])).toEqual([
      ["F-1", [{ source: "pr:PRRT_1", cycle: 0, author: "alice" }]],
      ["F-2", [{ source: "pr:PRRT_2", cycle: 0, author: "coderabbitai" }]],
    ]);

    // Next ingest: the reviewer resolved PRRT_2 on GitHub; PRRT_1 is still open.
    state.cycle = 1;
    const applied = applyEffect(
      {
        type: "findings",
        source: "pr:1",
        findings: [raw("Validate the input", 2)],
        origins: [{ source: "pr:PRRT_1", author: "alice" }],
        resolvedSources: ["pr:PRRT_2"],
      },
      registry,
      state,
      { blockingSeverity: "P2" },
    );
    expect(applied.summary).toBe("0 new, 1 merged, 0 reopened, 1 resolved");
    expect(registry.all().map((f) => [f.id, f.status])).toEqual([
      ["F-1", "open"],
      ["F-2", "resolved"],
    ]);
  });

  it("without origins, keeps the one-source behaviour", () => {
    const registry = Registry.load("t-1", [], { blockingSeverity: "P2", now: () => 1 });
    const applied = applyEffect(
      { type: "findings", source: "system", findings: [raw("A", 1), raw("B", 90)] },
      registry,
      initialRunState("x"),
      { blockingSeverity: "P2" },
    );
    expect(applied.summary).toBe("2 new, 0 merged, 0 reopened");
    expect(registry.all().every((f) => f.sources[0]?.source === "system")).toBe(true);
  });
});
