// The demo implementer: writes mean() and median() with two real defects a careful reviewer finds.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export default async function implementer(req) {
  const stats = join(req.cwd, "src/stats.js");
  const existing = readFileSync(stats, "utf8");
  writeFileSync(
    stats,
    `${existing}
export function mean(values) {
  return sum(values) / values.length;
}

export function median(values) {
  const xs = values;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}
`,
  );
  mkdirSync(join(req.cwd, "test"), { recursive: true });
  writeFileSync(
    join(req.cwd, "test/stats.test.js"),
    `import assert from "node:assert/strict";
import { test } from "node:test";
import { mean, median } from "../src/stats.js";

test("mean", () => {
  assert.equal(mean([2, 4]), 3);
});

test("median", () => {
  assert.equal(median([1, 2, 3]), 2);
  assert.equal(median([1, 2, 3, 4]), 2.5);
});
`,
  );
  return {
    text: "Added mean() and median() to src/stats.js with tests in test/stats.test.js.",
    usage: { input: 1800, output: 420 },
    costUsd: 0.0123,
  };
}
