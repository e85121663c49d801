import { FixpointError } from "../errors.js";
import { parseSeverity } from "../findings/severity.js";
import { type ConfigLayer, emptyLayer } from "./layer.js";
import { normaliseDatabaseUrl } from "./parse-sections.js";
import { resolvePath } from "./paths.js";

/** Command-line flags that override configuration (the highest layer). Paths relative to `cwd`. */
export interface ConfigFlags {
  workflow?: string;
  maxCycles?: number;
  /** `P0`…`P3` or an alias such as `major`. */
  blockingSeverity?: string;
  budgetUsd?: number;
  budgetTokens?: number;
  followups?: boolean;
  baseBranch?: string;
  /** `sqlite`, a SQLite file, or `postgres://…`. */
  database?: string;
  worktrees?: string;
}

/** The flags' layer; a bad value is a usage error naming the flag. */
export function flagsLayer(flags: ConfigFlags, ctx: { cwd: string; home: string }): ConfigLayer {
  const layer = emptyLayer("flags");
  const d = layer.defaults;
  const problems: string[] = [];
  const bad = (flag: string, expected: string, got: unknown) =>
    problems.push(`${flag} must be ${expected}, got ${String(got)}`);
  if (flags.workflow !== undefined) d.workflow = flags.workflow;
  if (flags.maxCycles !== undefined) {
    if (Number.isInteger(flags.maxCycles) && flags.maxCycles >= 1) d.maxCycles = flags.maxCycles;
    else bad("--max-cycles", "a whole number ≥ 1", flags.maxCycles);
  }
  if (flags.blockingSeverity !== undefined) {
    const severity = parseSeverity(flags.blockingSeverity);
    if (severity !== null) d.blockingSeverity = severity;
    else bad("--blocking-severity", "P0, P1, P2 or P3", flags.blockingSeverity);
  }
  const budget: NonNullable<typeof d.budget> = {};
  if (flags.budgetUsd !== undefined) {
    if (Number.isFinite(flags.budgetUsd) && flags.budgetUsd >= 0) budget.usd = flags.budgetUsd;
    else bad("--budget-usd", "a number ≥ 0", flags.budgetUsd);
  }
  if (flags.budgetTokens !== undefined) {
    if (Number.isInteger(flags.budgetTokens) && flags.budgetTokens >= 0) budget.tokens = flags.budgetTokens;
    else bad("--budget-tokens", "a whole number ≥ 0", flags.budgetTokens);
  }
  if (Object.keys(budget).length > 0) d.budget = budget;
  if (flags.followups !== undefined) d.followups = flags.followups;
  if (flags.baseBranch !== undefined) d.baseBranch = flags.baseBranch;
  if (flags.worktrees !== undefined) layer.worktrees = resolvePath(flags.worktrees, ctx.cwd, ctx.home);
  if (flags.database !== undefined) {
    const url = normaliseDatabaseUrl(flags.database, { baseDir: ctx.cwd, home: ctx.home });
    if (typeof url === "string") layer.database = url;
    else problems.push(`--database: ${url.error}`);
  }
  if (problems.length > 0) throw new FixpointError("usage", problems.join("\n"));
  return layer;
}
