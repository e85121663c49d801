import { type Finding, type FindingSource, isActiveFinding, type RawFinding } from "../domain/types.js";
import { mergeBodies } from "./dedup.js";
import { type LearnedDismissal, learnedNote } from "./learnings.js";
import { isGateOnly, type RegistryCore } from "./registry-core.js";
import { maxSeverity } from "./severity.js";

export interface AddResult {
  added: string[];
  merged: string[];
  reopened: string[];
}

/** Folds a duplicate report into the finding it matched: nothing a reviewer said is lost. */
function mergeInto(core: RegistryCore, f: Finding, raw: RawFinding, source: FindingSource): void {
  f.severity = maxSeverity(f.severity, raw.severity);
  f.body = mergeBodies(f.body, raw.body);
  f.suggestedFix ??= raw.suggestedFix;
  if (f.category === "general" && raw.category !== "general") f.category = raw.category;
  core.addSource(f, source);
}

/**
 * SPEC §8 rule 2. Each raw finding is matched against every finding of the task (any status)
 * and against those added earlier in the same batch:
 * - open/deferred match → merged (higher severity, bodies merged, source appended);
 * - fixed/resolved match → reopened (the problem came back) and merged;
 * - blocked/dismissed match → merged, status kept (a human owns it now);
 * - no match → a new finding F-<n>.
 * Gate-only findings are never matched here; `applyGate` owns them.
 */
export function addFindings(core: RegistryCore, raws: RawFinding[], source: FindingSource): AddResult {
  const result: AddResult = { added: [], merged: [], reopened: [] };
  const fresh = new Set<string>();
  const merged = new Set<string>();
  for (const raw of raws) {
    const match = core.index.findBest(raw, (f) => !isGateOnly(f));
    if (!match) {
      const f = core.create(raw, source);
      fresh.add(f.id);
      result.added.push(f.id);
      continue;
    }
    const before = match.status;
    if (before === "fixed" || before === "resolved") {
      core.reopen(match, source.cycle, `raised again by ${source.source}`);
      result.reopened.push(match.id);
    } else if (!fresh.has(match.id) && !merged.has(match.id)) {
      merged.add(match.id);
      result.merged.push(match.id);
    }
    mergeInto(core, match, raw, source);
    core.emit("finding.merged", {
      id: match.id,
      source: source.source,
      cycle: source.cycle,
      title: raw.title,
      severity: match.severity,
    });
  }
  return result;
}

/**
 * Findings a learning answered (issue 16). A new one is recorded `dismissed`, its note naming
 * the learning and its reason; one the task still has in play (open, fixed, deferred — e.g. a PR
 * thread raised before someone replied with a learning) is dismissed the same way. Either way the
 * learning gets a hit and the finding never reaches the fixer. One already settled (resolved,
 * blocked, dismissed) only gains the source, its status kept. Returns the ids dismissed here.
 */
export function addLearned(
  core: RegistryCore,
  items: readonly { raw: RawFinding; dismissal: LearnedDismissal }[],
  source: FindingSource,
): string[] {
  const dismissed: string[] = [];
  for (const { raw, dismissal } of items) {
    const match = core.index.findBest(raw, (f) => !isGateOnly(f));
    if (match) mergeInto(core, match, raw, source);
    const f = match ?? core.create(raw, source);
    if (match && !isActiveFinding(match.status)) continue;
    f.note = learnedNote(dismissal);
    core.setStatus(f, "dismissed", source.cycle, f.note);
    core.hit(dismissal.learningId);
    core.emit("finding.learned", {
      id: f.id,
      learning: dismissal.learningId,
      source: source.source,
      cycle: source.cycle,
    });
    dismissed.push(f.id);
  }
  return dismissed;
}
