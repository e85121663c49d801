/** The findings registry and the review/fix protocols (SPEC §7–§9). Pure: I/O is injected. */
export { finalReason, noProgress, type ReasonInput } from "./convergence.js";
export { dedupFindings, isDuplicate } from "./dedup.js";
export { fenceUntrusted } from "./fence.js";
export { fingerprint, normalizeTitle } from "./fingerprint.js";
export { parseFixReport } from "./fix-parse.js";
export { BLOCKED_REASONS, judgeJustification, matchBlockedReason } from "./fix-validate.js";
export { gateFinding } from "./gate-finding.js";
export { Registry } from "./registry.js";
export { estimateTokens, renderOutstandingFindings, renderPriorForReview } from "./render.js";
export { effectiveVerdict, parseReviewOutput } from "./review-parse.js";
export { FIX_REPORT_SCHEMA, REVIEW_OUTPUT_SCHEMA } from "./schemas.js";
export { compareSeverity, isBlocking, parseSeverity } from "./severity.js";
export { parseStoredReviewIssues, toStoredReviewIssues } from "./stored-issues.js";
