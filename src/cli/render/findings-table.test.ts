import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { finding as sample } from "../../../test/store/samples.js";
import type { Finding } from "../../domain/types.js";
import { REDACTED } from "../../util/redact.js";
import { findingsHistory, findingsTable } from "./findings-table.js";
import { columnWidths } from "./format.js";

/** A distinct finding per `n`: its own place, title and id. */
function finding(n: number, over: Partial<Finding> = {}): Finding {
  return sample("t-1", `F-${n}`, {
    title: `Problem ${n} in the parser`,
    file: `src/file-${n % 50}.ts`,
    lineStart: n,
    lineEnd: n + 2,
    ...over,
  });
}

const SECRET_NAME = "FIXPOINT_TEST_TABLE_TOKEN";
afterEach(() => {
  delete process.env[SECRET_NAME];
});

describe("columnWidths", () => {
  it("is each column's longest cell", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string(), { minLength: 0, maxLength: 5 })), fc.nat(6), (rows, n) => {
        const widths = columnWidths(rows, n);
        expect(widths).toEqual(
          Array.from({ length: n }, (_, i) => Math.max(0, ...rows.map((r) => (r[i] ?? "").length))),
        );
      }),
    );
  });
});

describe("findingsTable", () => {
  it("lists a registry of 200,000 findings, one aligned row each", () => {
    const findings = Array.from({ length: 200_000 }, (_, i) => finding(i + 1));
    const lines = findingsTable(findings).trimEnd().split("\n");
    expect(lines).toHaveLength(200_001);
    expect(lines[0]).toMatch(/^ {2}ID +SEV +STATUS +FILE:LINE +TITLE/);
    const title = (lines[0] ?? "").indexOf("TITLE");
    expect(lines[200_000]?.slice(title)).toMatch(/^Problem 200000 in the parser/);
    expect(lines[1]?.slice(title)).toMatch(/^Problem 1 in the parser/);
  });

  it("hides a secret value of the environment in every row", () => {
    const secret = "s3cr3t-value-of-the-table-test";
    process.env[SECRET_NAME] = secret;
    const findings = Array.from({ length: 300 }, (_, i) =>
      finding(i + 1, {
        title: `leaks ${secret}`,
        attempts: [
          { cycle: 1, status: "deferred", justification: `because ${secret}`, commitSha: null, at: 2_000 },
        ],
      }),
    );
    const text = findingsTable(findings);
    expect(text).not.toContain(secret);
    // The title and the last justification of each row.
    expect(text.split(REDACTED).length - 1).toBe(600);
    // The history cuts long justifications after hiding what they hold (a cut secret is no longer
    // one the output's last net would find).
    const history = findingsHistory(
      findings.map((f) => ({
        ...f,
        attempts: f.attempts.map((a) => ({ ...a, justification: `${"x".repeat(80)} ${secret}` })),
      })),
    );
    const attempts = history.split("\n").filter((l) => l.includes("fixer said"));
    expect(attempts).toHaveLength(300);
    for (const line of attempts) expect(line).not.toContain(secret.slice(0, 8));
    delete process.env[SECRET_NAME];
    // Read afresh on the next call: a value no longer in the environment is shown.
    expect(findingsTable(findings)).toContain(secret.slice(0, 10));
  });
});
