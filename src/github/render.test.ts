import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Finding } from "../domain/types.js";
import {
  findingMarker,
  findingMarkersIn,
  markerReadable,
  prBody,
  REPLY_MARKER,
  replyBody,
  techDebtIssue,
} from "./render.js";

function finding(over: Partial<Finding> = {}): Finding {
  return {
    taskId: "t-7",
    id: "F-2",
    fingerprint: "fp-abc",
    severity: "P1",
    category: "correctness",
    title: "Null check missing",
    body: "user may be undefined",
    file: "src/auth.ts",
    lineStart: 87,
    lineEnd: 92,
    suggestedFix: null,
    sources: [{ source: "review:codex", cycle: 0 }],
    status: "blocked",
    firstCycle: 0,
    lastCycle: 2,
    timesReopened: 0,
    attempts: [],
    note: null,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

describe("replyBody", () => {
  test("fixed → Applied in <short sha>", () => {
    const body = replyBody({
      status: "fixed",
      sha: "0123456789abcdef0123",
      justification: "added the\nnull check",
    });
    expect(body.split("\n")[0]).toBe("Applied in 0123456789ab: added the null check");
    expect(body).toContain(REPLY_MARKER);
  });

  test.each([
    ["blocked", "needs a human decision", "Declined: blocked — needs a human decision"],
    ["deferred", "waits for the API change", "Declined: deferred — waits for the API change"],
    ["rejected", "the change breaks the contract", "Declined: the change breaks the contract"],
    ["no_report", "", "Declined: the fixer did not report on this comment"],
  ] as const)("%s → Declined", (status, justification, first) => {
    expect(replyBody({ status, justification }).split("\n")[0]).toBe(first);
  });
});

describe("prBody", () => {
  test("a findings table whose cells cannot break the row, cost, and the task marker", () => {
    const body = prBody({
      task: { id: "t-7", title: "Rate limit login", summary: "Adds a limiter." },
      findings: [
        finding({ title: "a | b\nc", status: "fixed" }),
        finding({ id: "F-3", file: null, lineStart: null }),
      ],
      cost: { usd: 1.5, tokens: 123456 },
    });
    expect(body).toContain("| F-2 | P1 | fixed | a \\| b c | src/auth.ts:87-92 |");
    expect(body).toContain("| F-3 | P1 | blocked | Null check missing | — |");
    expect(body).toContain("Cost: $1.50, 123,456 tokens.");
    expect(body).toContain("<!-- fixpoint:task:t-7 -->");
  });
});

describe("techDebtIssue", () => {
  test("severity, place, every attempt, and the hidden fingerprint marker", () => {
    const { title, body } = techDebtIssue(
      finding({
        attempts: [
          {
            cycle: 1,
            status: "deferred",
            justification: "out of scope",
            commitSha: null,
            rejection: "weak excuse",
            at: 1,
          },
          {
            cycle: 2,
            status: "blocked",
            justification: "needs a human decision",
            commitSha: "deadbeefcafe1234",
            at: 2,
          },
        ],
      }),
      { taskId: "t-7", prUrl: "https://github.example/acme/shop/pull/4" },
    );
    expect(title).toBe("[P1] Null check missing");
    expect(body).toContain("**Severity:** P1");
    expect(body).toContain("`src/auth.ts:87-92`");
    expect(body).toContain("https://github.example/acme/shop/pull/4");
    expect(body).toContain("| 1 | deferred | out of scope (rejected: weak excuse) | — |");
    expect(body).toContain("| 2 | blocked | needs a human decision | deadbeefcafe |");
    expect(body.trimEnd().endsWith(findingMarker("fp-abc"))).toBe(true);
  });
});

describe("findingMarkersIn", () => {
  const fingerprint = fc.stringMatching(/^[0-9a-f]{1,6}$/);
  const bodyPiece = fc.oneof(
    fingerprint.map(findingMarker),
    fingerprint.map((f) => `<!-- fixpoint:finding:${f}`),
    fc.constantFrom("<!-- fixpoint:finding:", " -->", " --", "-->", "text ", "\n", "<!-- "),
    fingerprint,
  );

  test("finds every marker a body holds, exactly those its includes would", () => {
    fc.assert(
      fc.property(
        fc.array(bodyPiece, { maxLength: 12 }),
        fc.array(fingerprint, { maxLength: 6 }),
        (pieces, asked) => {
          const body = pieces.join("");
          const found = new Set(findingMarkersIn(body));
          for (const f of [...asked, ...pieces].filter(markerReadable)) {
            expect(found.has(findingMarker(f))).toBe(body.includes(findingMarker(f)));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
  test("reads no marker longer than a fingerprint can be; such a fingerprint is searched for whole", () => {
    const openings = "<!-- fixpoint:finding:".repeat(3_000);
    const markers = findingMarkersIn(`${openings}abc -->`);
    // Only the openings within a fingerprint's length of the close: not 3,000 markers of up to 66 KB.
    expect(markers.length).toBeLessThan(250);
    expect(markers.every((m) => m.length <= 5_000 + findingMarker("").length)).toBe(true);
    expect(markers.at(-1)).toBe(findingMarker("abc"));
    expect(markerReadable("x".repeat(6_000))).toBe(false);
    expect(markerReadable("src/a.ts:1:null check missing")).toBe(true);
  });
});
