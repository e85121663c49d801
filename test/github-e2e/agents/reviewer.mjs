// The e2e reviewer: raises nothing new; every earlier finding is resolved except the ones whose
// text says DEFERME, which it keeps open.
import { findingsIn, record } from "./record.mjs";

export default async function reviewer(req) {
  record("reviewer", req);
  const earlier = req.prompt.split("# Earlier findings")[1]?.split("# Output")[0] ?? "";
  const prior = findingsIn(earlier).map(({ id, text }) =>
    text.includes("DEFERME")
      ? { id, status: "still_open", note: "still there" }
      : { id, status: "resolved", note: "verified" },
  );
  const review = { verdict: "APPROVED", summary: "Looks fine.", findings: [], prior };
  return { text: `\`\`\`json\n${JSON.stringify(review)}\n\`\`\`\n`, costUsd: 0.005 };
}
