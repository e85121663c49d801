// The e2e fixer: "fixes" each listed finding by appending a line to FIXES.md, except findings
// whose text says BLOCKME (blocked) or DEFERME (deferred). With FIXPOINT_TEST_HANG_FIX set, the
// first fix writes part of its work and hangs so a test can kill the worker mid-stage.
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findingsIn, firstTime, record } from "./record.mjs";

export default async function fixer(req) {
  record("fixer", req);
  if (process.env.FIXPOINT_TEST_HANG_FIX && firstTime("hang-fix")) {
    appendFileSync(join(req.cwd, "FIXES.md"), "half-done work of the interrupted fixer\n");
    writeFileSync(`${process.env.FIXPOINT_TEST_PROMPTS}.fixer-waiting`, "1");
    await new Promise((resolve) => setTimeout(resolve, 120_000));
  }
  // The findings stand under their own heading (the output format comes first in the prompt).
  const found = req.prompt.split("# What the reviewers and gates found")[1];
  const section = found?.split("# This fix")[0] ?? req.prompt.split("# Your report")[0] ?? req.prompt;
  const report = [];
  for (const { id, text } of findingsIn(section)) {
    if (text.includes("BLOCKME")) {
      report.push({
        id,
        status: "blocked",
        reason: "needs a human decision",
        justification: "The retry policy is a product decision the reviewer must make.",
      });
    } else if (text.includes("DEFERME")) {
      report.push({
        id,
        status: "deferred",
        justification: "Needs the streaming parser from the platform team, which lands in release 4.2.",
      });
    } else {
      appendFileSync(join(req.cwd, "FIXES.md"), `fixed ${id}\n`);
      report.push({ id, status: "fixed", justification: `guarded the input in src/app.js (${id})` });
    }
  }
  return {
    text: `\`\`\`json\n${JSON.stringify({ summary: `Addressed ${report.length} finding(s).`, findings: report })}\n\`\`\`\n`,
    costUsd: 0.01,
  };
}
