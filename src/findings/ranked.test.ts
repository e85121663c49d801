import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { finding } from "../../test/store/samples.js";
import type { Finding, Severity } from "../domain/types.js";
import { countsBySeverity, rankFindings, sliceRanked } from "./ranked.js";
import { numericId } from "./registry-core.js";
import { isBlocking, severityRank } from "./severity.js";

/** The priority order as one stable sort by (tier, severity, id): what rankFindings must equal. */
function referenceOrder(findings: readonly Finding[], blocking: Severity, raisedBy?: string): Finding[] {
  const tier = (f: Finding) =>
    isBlocking(f.severity, blocking)
      ? 0
      : raisedBy !== undefined && f.sources.some((s) => s.source === raisedBy)
        ? 1
        : 2;
  return findings
    .map((f) => ({ f, t: tier(f), s: severityRank(f.severity), n: numericId(f.id) }))
    .sort((a, b) => a.t - b.t || a.s - b.s || a.n - b.n)
    .map((k) => k.f);
}

/** The "left out" counts read straight from the findings. */
function referenceCounts(findings: readonly Finding[], per = 8): string {
  const bySev = new Map<Severity, number[]>();
  for (const f of findings) {
    const ids = bySev.get(f.severity) ?? [];
    ids.push(numericId(f.id));
    bySev.set(f.severity, ids);
  }
  return [...bySev.entries()]
    .sort(([a], [b]) => severityRank(a) - severityRank(b))
    .map(([sev, ids]) => {
      const shown = [...ids].sort((a, b) => a - b).slice(0, per);
      const more = ids.length > per ? `, +${ids.length - per} more` : "";
      return `${ids.length} ${sev} finding${ids.length === 1 ? "" : "s"} (${shown.map((n) => `F-${n}`).join(", ")}${more})`;
    })
    .join("; ");
}

const row = fc.record({
  n: fc.integer({ min: 1, max: 60 }),
  odd: fc.boolean(),
  // "P9" and "urgent" are severities fixpoint does not know (rank -1).
  severity: fc.constantFrom("P0", "P1", "P2", "P3", "P9", "urgent"),
  by: fc.subarray(["review:a", "review:b", "gate:lint"]),
});

function findingsOf(rows: { n: number; odd: boolean; severity: string; by: string[] }[]): Finding[] {
  return rows.map((r, i) =>
    finding("t-1", r.odd ? `legacy-${i}` : `F-${r.n}`, {
      severity: r.severity as Severity,
      sources: r.by.map((source) => ({ source, cycle: 0 })),
    }),
  );
}

describe("rankFindings", () => {
  it("property: the same order as one stable sort by (tier, severity, id), in order or not", () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 50 }),
        fc.boolean(),
        fc.constantFrom<Severity>("P0", "P1", "P2"),
        fc.constantFrom(undefined, "review:a", "review:c"),
        (rows, presorted, blocking, raisedBy) => {
          let fs = findingsOf(rows);
          // The registry hands findings out most severe first, then by id: the fast path.
          if (presorted) fs = referenceOrder(fs, "P0");
          const ranked = rankFindings(fs, blocking, raisedBy);
          expect(ranked.findings).toEqual(referenceOrder(fs, blocking, raisedBy));
          expect(ranked.sevs).toEqual(ranked.findings.map((f) => severityRank(f.severity)));
          expect(ranked.ids).toEqual(ranked.findings.map((f) => numericId(f.id)));
        },
      ),
    );
  });

  it("property: counts by severity from the ranks and ids equal counts read from the findings", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), fc.nat(60), (rows, from) => {
        const ranked = rankFindings(findingsOf(rows), "P1", "review:a");
        expect(countsBySeverity(ranked, from)).toBe(referenceCounts(ranked.findings.slice(from)));
        const rest = sliceRanked(ranked, from);
        expect(countsBySeverity(rest)).toBe(referenceCounts(rest.findings));
      }),
    );
  });
});

describe("numericId", () => {
  /** What numericId returned before its fast path for `F-<digits>`. */
  function parsed(id: string): number {
    const prefixed = /^[Ff]-/.test(id);
    const n = Number.parseInt(prefixed ? id.slice(2) : id, 10);
    return Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
  }

  it("property: reads an id as parseInt does, whatever follows the F-", () => {
    const tail = fc.oneof(
      fc.stringMatching(/^[0-9]{0,20}$/),
      fc.stringMatching(/^[0-9 +\-.ex]{0,8}$/),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.constantFrom("F-", "f-", "", "G-", "F"), tail, (prefix, rest) => {
        expect(numericId(prefix + rest)).toBe(parsed(prefix + rest));
      }),
      { numRuns: 2000 },
    );
    for (const id of ["F-0", "F-007", "F-999999999999999", "F-9999999999999999", "F-", "F-12a"]) {
      expect(numericId(id)).toBe(parsed(id));
    }
  });
});
