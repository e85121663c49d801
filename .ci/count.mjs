// Reads vitest's JSON report and prints the closing line CI reads: `N passed, N failed`.
// Exits 1 when a test failed, a suite failed to load, or no test ran.
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2];
if (!file || !existsSync(file)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const passed = report.numPassedTests ?? 0;
let failed = report.numFailedTests ?? 0;
// A test file that failed to load has no test results but counts as a failure, and so does every
// test a failed file skipped (a failing beforeAll marks its tests skipped).
for (const file of report.testResults ?? []) {
  if (file.status !== "failed") continue;
  const results = file.assertionResults ?? [];
  if (results.length === 0) failed += 1;
  else failed += results.filter((t) => t.status === "skipped" || t.status === "pending").length;
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
