import { it } from "vitest";
import { Registry } from "./registry.js";
import { renderOutstandingFindings, renderPriorForReview } from "./render.js";
it("x", () => {
  const r = Registry.load("t", [], { blockingSeverity: "P1", now: () => 0 });
  r.addFindings([{ severity: "P1", category: "security", title: "SQL injection in user search", body: "The query concatenates `name`.\n```ts\nq = 'select ' + name\n```", file: "src/api/users.ts", lineStart: 87, lineEnd: 92, suggestedFix: "Use parameters" },
   { severity: "P3", category: "style", title: "Naming", body: "rename x", file: "src/a.ts", lineStart: 3, lineEnd: 3, suggestedFix: null }], { source: "review:security", cycle: 0 });
  r.applyGate("test", 0, { passed: false, finding: Registry.gateFinding("test", 1, "ok 1\nFAIL src/a.test.ts > parses\nAssertionError: expected 1 to be 2\n", "npm ERR! Test failed", false) });
  r.applyFixReport({ summary: "", entries: [{ id: "F-1", status: "deferred", justification: "out of scope" }] }, { cycle: 1, commitSha: "abcdef1234567", shownIds: ["F-1", "F-2", "F-3"] });
  console.log(renderOutstandingFindings(r.forFix(), { tokenBudget: 5000, blockingSeverity: "P1" }).text);
  console.log(renderPriorForReview(r.forReview()));
  console.log(JSON.stringify(r.drainChanges().events.map(e => [e.type, e.data])));
});
