// The demo fixer: repairs exactly what the listed findings describe and reports on every id.
import { checkFor, findingsSection, idsInPrompt } from "./checks.mjs";

export default async function fixer(req) {
  const section = findingsSection(req.prompt);
  const report = [];
  for (const { id } of idsInPrompt(section)) {
    const check = checkFor(section, id);
    if (!check) {
      report.push({
        id,
        status: "blocked",
        reason: "needs a human decision",
        justification: "The demo fixer does not know how to repair this finding.",
      });
      continue;
    }
    const defect = await check.defect(req.cwd);
    const justification = defect ? check.repair(req.cwd) : "Already correct in the current code.";
    report.push({ id, status: "fixed", justification });
  }
  return {
    text: `\`\`\`json\n${JSON.stringify({ summary: `Addressed ${report.length} finding(s).`, findings: report }, null, 2)}\n\`\`\`\n`,
    usage: { input: 3100, output: 650 },
    costUsd: 0.0188,
  };
}
