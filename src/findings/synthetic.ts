import type { RawFinding, Severity } from "../domain/types.js";
import { seededRandom } from "../util/seeded-random.js";

/**
 * Deterministic synthetic findings for the dedup benchmark (SPEC §14) and its test: most are
 * distinct, a share restate an earlier one (moved a few lines, a typo in the title), the way
 * parallel reviewers restate each other.
 */

/** Share of findings that restate an earlier one. */
const DUPLICATE_SHARE = 0.3;

const WORDS = (
  "null check missing unchecked error handling race condition leak connection pool timeout retry " +
  "injection query escape input validation cache stale invalidation off by one loop bound index " +
  "overflow integer parse float rounding lock deadlock await floating promise unhandled rejection " +
  "path traversal permission secret logged token header cookie session expiry clock skew encoding"
).split(" ");
const SEVERITIES: Severity[] = ["P0", "P1", "P2", "P3"];

export function syntheticFindings(count: number, files: number, seed = 42): RawFinding[] {
  const rnd = seededRandom(seed);
  const pickOf = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const out: RawFinding[] = [];
  for (let i = 0; i < count; i++) {
    const base = out.length > 0 && rnd() < DUPLICATE_SHARE ? out[Math.floor(rnd() * out.length)] : undefined;
    if (base) {
      const shift = Math.floor(rnd() * 7) - 3;
      const at = Math.floor(rnd() * base.title.length);
      const title = `${base.title.slice(0, at)}${pickOf(["x", "e", ""])}${base.title.slice(at + 1)}`;
      const lineStart = Math.max(1, (base.lineStart ?? 1) + shift);
      out.push({ ...base, title, lineStart, lineEnd: lineStart + 3, severity: pickOf(SEVERITIES) });
      continue;
    }
    const words = Array.from({ length: 4 + Math.floor(rnd() * 5) }, () => pickOf(WORDS));
    const lineStart = 1 + Math.floor(rnd() * 3000);
    out.push({
      severity: pickOf(SEVERITIES),
      category: "correctness",
      title: words.join(" "),
      body: `Finding ${i}: ${words.join(" ")} in this function.`,
      file: `src/module-${Math.floor(rnd() * files)}.ts`,
      lineStart,
      lineEnd: lineStart + Math.floor(rnd() * 10),
      suggestedFix: null,
    });
  }
  return out;
}
