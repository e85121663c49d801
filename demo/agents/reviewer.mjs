// The demo reviewers: each runs the code for real. The reviewer that owns a check raises its
// defect as a finding; every reviewer re-checks the earlier findings it is shown.
import { CHECKS, checkFor, idsInPrompt } from "./checks.mjs";

export default async function reviewer(req) {
  const findings = [];
  for (const check of CHECKS.filter((c) => c.owner === req.stageId)) {
    const defect = await check.defect(req.cwd);
    if (defect) {
      const line = check.where(req.cwd);
      findings.push({
        severity: check.severity,
        category: check.category,
        title: check.title,
        body: defect,
        file: "src/stats.js",
        line_start: line,
        line_end: line + 3,
        suggested_fix: check.suggestedFix,
      });
    }
  }
  // The last "Earlier findings" heading is fixpoint's list; earlier ones may sit in quoted reviews.
  const at = req.prompt.lastIndexOf("# Earlier findings");
  const priorSection = at >= 0 ? req.prompt.slice(at).split("# Output")[0] : "";
  const prior = [];
  for (const { id } of idsInPrompt(priorSection)) {
    const check = checkFor(priorSection, id);
    if (!check) continue;
    const defect = await check.defect(req.cwd);
    prior.push({ id, status: defect ? "still_open" : "resolved", note: defect ?? "verified: fixed" });
  }
  const stillOpen = prior.some((p) => p.status === "still_open");
  const verdict = findings.length || stillOpen ? "CHANGES_REQUESTED" : "APPROVED";
  const review = {
    verdict,
    summary: findings.length
      ? `Found ${findings.length} problem(s) by running the code.`
      : "Ran the code; no problems found.",
    findings,
    prior,
  };
  return {
    text: `Review done.\n\n\`\`\`json\n${JSON.stringify(review, null, 2)}\n\`\`\`\n`,
    usage: { input: 2400, output: 310 },
    costUsd: 0.0061,
  };
}
