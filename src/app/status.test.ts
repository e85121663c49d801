import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TASK_STATUSES } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { parseSince } from "./since.js";
import { statusFilter } from "./status.js";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

function usageError(f: () => unknown): FixpointError {
  try {
    f();
  } catch (e) {
    if (e instanceof FixpointError) return e;
    throw e;
  }
  throw new Error("expected a usage error");
}

describe("status filters", () => {
  it("property: any statuses, in any case and with - for _, read back as themselves", () => {
    const spelt = fc
      .constantFrom(...TASK_STATUSES)
      .chain((s) => fc.tuple(fc.constant(s), fc.boolean(), fc.boolean()))
      .map(([s, upper, dash]) => ({
        s,
        typed: (upper ? s.toUpperCase() : s).replace(/_/g, dash ? "-" : "_"),
      }));
    fc.assert(
      fc.property(fc.array(spelt, { minLength: 1, maxLength: 6 }), (picked) => {
        const f = statusFilter({ statuses: picked.map((p) => p.typed) }, NOW);
        expect(f.statuses).toEqual([...new Set(picked.map((p) => p.s))]);
      }),
    );
  });

  it("property: anything that is not a status is a usage error (exit 2) naming it", () => {
    const notStatus = fc
      .string({ minLength: 1, maxLength: 20 })
      .filter(
        (s) => !(TASK_STATUSES as readonly string[]).includes(s.trim().toLowerCase().replace(/-/g, "_")),
      );
    fc.assert(
      fc.property(notStatus, (s) => {
        const e = usageError(() => statusFilter({ statuses: [s] }, NOW));
        expect(e.exitCode).toBe(2);
        expect(e.message).toContain(`unknown status \`${s}\``);
      }),
    );
  });

  it("--needs-me keeps only needs_human, also within --status; --all adds cancelled", () => {
    expect(statusFilter({ needsMe: true }, NOW).statuses).toEqual(["needs_human"]);
    expect(statusFilter({ needsMe: true, statuses: ["failed"] }, NOW).statuses).toEqual([]);
    // No statuses named: every task but the cancelled ones, or every task.
    expect(statusFilter({}, NOW)).toEqual({ excludeStatuses: ["cancelled"] });
    expect(statusFilter({ all: true }, NOW)).toEqual({});
    expect(statusFilter({ all: true, statuses: ["cancelled"] }, NOW)).toEqual({ statuses: ["cancelled"] });
  });
});

describe("since", () => {
  it("property: a duration means that long before now", () => {
    const part = fc.tuple(fc.integer({ min: 1, max: 99 }), fc.constantFrom("ms", "s", "m", "h", "d"));
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        const text = parts.map(([n, u]) => `${n}${u}`).join("");
        const back = parts.reduce((a, [n, u]) => a + n * unit[u], 0);
        expect(parseSince(text, NOW)).toBe(NOW - back);
      }),
    );
  });

  it("takes dates and `all`, and rejects anything else with exit 2", () => {
    expect(parseSince("2026-11-01", NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(parseSince("all", NOW)).toBeUndefined();
    for (const bad of ["yesterday", "12", "", "2026-13-45", "-1h"])
      expect(usageError(() => parseSince(bad, NOW)).exitCode).toBe(2);
  });
});
