import type { RegistryCore } from "./registry-core.js";
import type { VerifyVerdict } from "./verify-parse.js";

export interface VerifyResult {
  confirmed: string[];
  refuted: string[];
}

/** The note a refuted finding keeps; replies and listings show it (`refuted: <evidence>`). */
export const REFUTED_PREFIX = "refuted: ";

/**
 * A verify stage's verdicts: a refuted open finding is dismissed — fixpoint will not fix it —
 * with its evidence as the note (`refuted: …`); a confirmed one stays open for the fixer with
 * the evidence as its note. Findings no longer open (or unknown ids) are left alone.
 */
export function applyVerification(
  core: RegistryCore,
  verdicts: readonly VerifyVerdict[],
  ctx: { source: string; cycle: number },
): VerifyResult {
  const out: VerifyResult = { confirmed: [], refuted: [] };
  for (const v of verdicts) {
    const f = core.findings.get(v.id);
    if (f?.status !== "open") continue;
    if (v.verdict === "refuted") {
      f.note = `${REFUTED_PREFIX}${v.evidence}`;
      core.setStatus(f, "dismissed", ctx.cycle, `${REFUTED_PREFIX}${v.evidence}`);
      out.refuted.push(f.id);
    } else {
      f.note = v.evidence ? `confirmed by ${ctx.source}: ${v.evidence}` : `confirmed by ${ctx.source}`;
      core.touch(f);
      out.confirmed.push(f.id);
    }
    core.emit("finding.verified", { id: f.id, verdict: v.verdict, cycle: ctx.cycle, source: ctx.source });
  }
  return out;
}
