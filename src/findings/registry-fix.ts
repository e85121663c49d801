import type { Finding, FixAttempt, FixReport, FixReportEntry } from "../domain/types.js";
import { isActiveFinding } from "../domain/types.js";
import { judgeJustification, matchBlockedReason, rejectionMessage } from "./fix-validate.js";
import type { RegistryCore } from "./registry-core.js";

export interface FixReportOutcome {
  fixed: string[];
  blocked: string[];
  deferred: string[];
  rejected: { id: string; reason: string }[];
  /** Shown to the fixer, not reported: deferred with "no report". */
  missing: string[];
  /** Reported but not a finding the fixer could act on (unknown id, or resolved/dismissed). */
  unknown: string[];
}

export interface FixContext {
  cycle: number;
  commitSha: string | null;
  shownIds: string[];
}

/** A fixer may report on what is still in play, blocked ones included (it may fix them after all). */
const REPORTABLE = new Set(["open", "deferred", "fixed", "blocked"]);

function attempt(
  ctx: FixContext,
  now: number,
  a: Pick<FixAttempt, "status" | "justification" | "rejection">,
): FixAttempt {
  const out: FixAttempt = {
    cycle: ctx.cycle,
    status: a.status,
    justification: a.justification,
    commitSha: ctx.commitSha,
    at: now,
  };
  if (a.rejection !== undefined) out.rejection = a.rejection;
  return out;
}

/** A deferral stands only with a real justification; a weak one is refused and the finding stays open. */
function deferOrReject(
  core: RegistryCore,
  f: Finding,
  justification: string,
  ctx: FixContext,
  out: FixReportOutcome,
): void {
  const now = core.opts.now();
  const j = judgeJustification(justification);
  if (j.weak) {
    const rejection = rejectionMessage(justification, j.why);
    core.addAttempt(f, attempt(ctx, now, { status: "rejected", justification, rejection }));
    core.setStatus(f, "open", ctx.cycle, "deferral rejected: weak justification");
    core.touch(f);
    core.emit("fix.rejected", { id: f.id, cycle: ctx.cycle, justification, rejection });
    out.rejected.push({ id: f.id, reason: rejection });
    return;
  }
  core.addAttempt(f, attempt(ctx, now, { status: "deferred", justification }));
  core.setStatus(f, "deferred", ctx.cycle, "deferred by the fixer");
  core.touch(f);
  out.deferred.push(f.id);
}

function applyEntry(
  core: RegistryCore,
  f: Finding,
  e: FixReportEntry,
  ctx: FixContext,
  out: FixReportOutcome,
): void {
  const now = core.opts.now();
  const justification = e.justification.trim();
  if (e.status === "fixed") {
    core.addAttempt(
      f,
      attempt(ctx, now, { status: "fixed", justification: justification || "(no description)" }),
    );
    core.setStatus(f, "fixed", ctx.cycle, "fixed per the fixer");
    core.touch(f);
    out.fixed.push(f.id);
    return;
  }
  if (e.status === "deferred") {
    deferOrReject(core, f, justification, ctx, out);
    return;
  }
  // blocked: only an accepted reason with a justification blocks; the reason may sit in either field.
  const reason = matchBlockedReason(e.reason) ?? (e.reason ? null : matchBlockedReason(justification));
  if (justification === "") {
    const why = `blocked without justification${e.reason ? ` (reason: ${e.reason})` : ""}`;
    core.addAttempt(f, attempt(ctx, now, { status: "deferred", justification: why }));
    core.setStatus(f, "deferred", ctx.cycle, why);
    core.touch(f);
    out.deferred.push(f.id);
  } else if (reason === null) {
    // Not one of the accepted reasons: it is a deferral and is judged like one.
    deferOrReject(core, f, e.reason ? `${e.reason}: ${justification}` : justification, ctx, out);
  } else {
    core.addAttempt(
      f,
      attempt(ctx, now, { status: "blocked", justification: `${reason}: ${justification}` }),
    );
    core.setStatus(f, "blocked", ctx.cycle, reason);
    core.touch(f);
    out.blocked.push(f.id);
  }
}

/**
 * SPEC §8 rule 3 (seed 003): the fixer must account for every finding it was shown. The last
 * entry for an id wins; ids it skipped are deferred with "no report"; ids that are not live
 * findings are ignored and logged.
 */
export function applyFixReport(core: RegistryCore, report: FixReport, ctx: FixContext): FixReportOutcome {
  const out: FixReportOutcome = {
    fixed: [],
    blocked: [],
    deferred: [],
    rejected: [],
    missing: [],
    unknown: [],
  };
  const entries = new Map<string, FixReportEntry>();
  for (const e of report.entries) entries.set(e.id, e);
  for (const [id, e] of entries) {
    const f = core.findings.get(id);
    if (!f || !REPORTABLE.has(f.status)) {
      out.unknown.push(id);
      core.emit("fix.unknown_id", { id, cycle: ctx.cycle, status: f ? f.status : null });
      continue;
    }
    applyEntry(core, f, e, ctx, out);
  }
  const now = core.opts.now();
  for (const id of ctx.shownIds) {
    const f = core.findings.get(id);
    if (entries.has(id) || !f || (f.status !== "open" && f.status !== "deferred")) continue;
    core.addAttempt(f, attempt(ctx, now, { status: "no_report", justification: "no report" }));
    core.setStatus(f, "deferred", ctx.cycle, "no report");
    core.touch(f);
    out.missing.push(id);
  }
  return out;
}

/**
 * SPEC §8 rule 5: before a fix, findings on files that no longer exist are blocked by the system.
 * `exists` is the engine's worktree-confined check; each file is asked about once.
 */
export async function autoBlockDeleted(
  core: RegistryCore,
  exists: (file: string) => boolean | Promise<boolean>,
  cycle: number,
): Promise<string[]> {
  const answers = new Map<string, boolean>();
  const blocked: string[] = [];
  for (const f of core.findings.values()) {
    if (f.file === null || !isActiveFinding(f.status)) continue;
    let present = answers.get(f.file);
    if (present === undefined) {
      present = await exists(f.file);
      answers.set(f.file, present);
    }
    if (present) continue;
    core.addAttempt(f, {
      cycle,
      status: "blocked",
      justification: "referenced file deleted",
      commitSha: null,
      at: core.opts.now(),
    });
    core.setStatus(f, "blocked", cycle, "referenced file deleted (system)");
    blocked.push(f.id);
  }
  return blocked;
}
