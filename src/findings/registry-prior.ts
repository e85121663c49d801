import type { Finding, FindingStatus, PriorVerdict } from "../domain/types.js";
import { isActiveFinding } from "../domain/types.js";
import type { RegistryCore } from "./registry-core.js";

export interface PriorResult {
  resolved: string[];
  stillOpen: string[];
  reopened: string[];
  omitted: string[];
}

export interface PriorContext {
  source: string;
  cycle: number;
  expectedIds: string[];
}

/**
 * What each finding looked like before the first reviewer of a cycle spoke about it, and whether
 * any reviewer of that cycle said still_open. This is how "still_open beats resolved within a
 * cycle" holds whatever order the reviewers are applied in.
 */
export class PriorLedger {
  private cycle = Number.NaN;
  private readonly entries = new Map<string, { base: FindingStatus; stillOpen: boolean }>();

  entry(f: Finding, cycle: number): { base: FindingStatus; stillOpen: boolean } {
    if (cycle !== this.cycle) {
      this.cycle = cycle;
      this.entries.clear();
    }
    let e = this.entries.get(f.id);
    if (!e) {
      e = { base: f.status, stillOpen: false };
      this.entries.set(f.id, e);
    }
    return e;
  }
}

function stillOpen(
  core: RegistryCore,
  f: Finding,
  base: FindingStatus,
  ctx: PriorContext,
  out: PriorResult,
): void {
  const reason = `still open per ${ctx.source}`;
  f.lastCycle = Math.max(f.lastCycle, ctx.cycle);
  core.touch(f);
  if (f.status === "fixed" || (f.status === "resolved" && (base === "fixed" || base === "resolved"))) {
    // The fixer's claim (or an earlier resolution) did not hold up.
    core.reopen(f, ctx.cycle, reason);
    out.reopened.push(f.id);
  } else if (f.status === "resolved") {
    // Another reviewer resolved it this cycle; still_open wins and restores what it was.
    core.setStatus(f, base, ctx.cycle, reason);
  }
  // open and deferred stay as they are; blocked and dismissed belong to a human now.
}

/**
 * A reviewer's statuses for earlier findings (SPEC §7/§8 rule 4):
 * - `resolved` moves open/fixed/deferred → resolved, unless a reviewer said still_open this cycle;
 * - `still_open` reopens a fixed (or resolved) finding, keeps open/deferred as they are;
 * - `not_applicable` changes nothing but is kept as the finding's note: only `resolved` resolves,
 *   so a reviewer cannot dismiss a finding another reviewer raised — a human or the fixer
 *   ("contradicts the task") settles that;
 * - gate-only findings ignore reviewers (only the gate resolves them);
 * - ids the reviewer was shown but omitted are logged and left unchanged; unknown ids are logged.
 */
export function applyPrior(
  core: RegistryCore,
  ledger: PriorLedger,
  prior: PriorVerdict[],
  ctx: PriorContext,
): PriorResult {
  const out: PriorResult = { resolved: [], stillOpen: [], reopened: [], omitted: [] };
  const unknown: string[] = [];
  const given = new Set<string>();
  for (const v of prior) {
    const f = core.findings.get(v.id);
    if (!f) {
      unknown.push(v.id);
      continue;
    }
    given.add(f.id);
    if (core.isGateOnly(f)) continue;
    const note = v.note?.trim();
    if (note) {
      f.note = v.status === "not_applicable" ? `not applicable: ${note}` : note;
      core.touch(f);
    }
    const entry = ledger.entry(f, ctx.cycle);
    if (v.status === "still_open") {
      entry.stillOpen = true;
      out.stillOpen.push(f.id);
      stillOpen(core, f, entry.base, ctx, out);
    } else if (v.status === "resolved" && !entry.stillOpen && isActiveFinding(f.status)) {
      core.setStatus(f, "resolved", ctx.cycle, `resolved per ${ctx.source}`);
      out.resolved.push(f.id);
    } else if (v.status === "not_applicable" && !note) {
      f.note = `not applicable per ${ctx.source}`;
      core.touch(f);
    }
  }
  out.omitted = ctx.expectedIds.filter((id) => !given.has(id));
  if (out.omitted.length > 0) {
    core.emit("review.prior_omitted", { source: ctx.source, cycle: ctx.cycle, ids: out.omitted });
  }
  if (unknown.length > 0) {
    // A warning, not an error: the statuses for ids the task knows still count.
    core.emit("review.prior_unknown_id", {
      level: "warning",
      source: ctx.source,
      cycle: ctx.cycle,
      ids: unknown,
      message: `${ctx.source} gave a status for ${unknown.join(", ")}, which this task has no finding with; ignored`,
    });
  }
  return out;
}
