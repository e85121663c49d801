/** The output contracts given to agents, in words (the JSON schemas say the same for backends that enforce them). */

export const REVIEW_FORMAT = `Reply with one JSON object (in a \`\`\`json fenced block unless you have a structured-output channel):

{
  "verdict": "APPROVED" | "APPROVED_WITH_FOLLOWUPS" | "CHANGES_REQUESTED" | "NEEDS_DISCUSSION",
  "summary": "one paragraph",
  "findings": [
    {"severity": "P0|P1|P2|P3", "category": "correctness|security|tests|performance|style|…",
     "title": "short, specific", "body": "what is wrong and why",
     "file": "path/relative/to/repo", "line_start": 1, "line_end": 1, "suggested_fix": "…"}
  ],
  "prior": [{"id": "F-1", "status": "resolved" | "still_open" | "not_applicable", "note": "…"}]
}

Rules:
- Give EVERY finding listed under "Earlier findings" a status in "prior". "resolved" only when you checked the code and the problem is gone.
- Report only problems you are confident about; omit the rest. Do not repeat an earlier finding as a new one: use "prior".
- P0 and P1 block approval. Use NEEDS_DISCUSSION only when a human must decide.`;

export const FIX_FORMAT = `When you are done, reply with one JSON object (in a \`\`\`json fenced block unless you have a structured-output channel):

{
  "summary": "what you changed",
  "findings": [
    {"id": "F-1", "status": "fixed", "justification": "what changed, where"},
    {"id": "F-2", "status": "blocked", "reason": "needs a human decision" | "external dependency" | "contradicts the task" | "file no longer exists", "justification": "why, concretely"},
    {"id": "F-3", "status": "deferred", "justification": "a concrete, specific reason"}
  ]
}

Rules (they are enforced):
- Report on EVERY finding id listed in this prompt. A missing entry is recorded as deferred with "no report" and comes back next cycle.
- "blocked" needs one of the four accepted reasons and a justification. Without a justification it counts as deferred.
- Weak justifications ("out of scope", "takes too long", "too complex", "not important", "later", an empty one) are rejected: the finding stays open and the rejection is shown to you next cycle.
- Deferred findings come back next cycle. "fixed" is a claim: the next review verifies it.`;

export const VERIFY_FORMAT = `Reply with one JSON object (in a \`\`\`json fenced block unless you have a structured-output channel):

{
  "verdicts": [
    {"id": "F-1", "verdict": "confirmed", "evidence": "the failing test, the trace, or the quoted code that shows the problem"},
    {"id": "F-2", "verdict": "refuted", "evidence": "why it is not a bug, with the code or test that shows it"}
  ]
}

Rules:
- Give every finding listed above a verdict. A refutation without evidence is ignored and the finding goes to the fixer.
- Change nothing in the repository. You may run tests and read code.`;
