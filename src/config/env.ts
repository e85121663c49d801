import { FixpointError } from "../errors.js";
import { parseSeverity } from "../findings/severity.js";
import { didYouMean } from "../util/did-you-mean.js";
import { wholeNumber } from "../util/whole-number.js";
import { type ConfigLayer, emptyLayer } from "./layer.js";
import { normaliseDatabaseUrl } from "./parse-sections.js";
import { homeFrom, resolvePath } from "./paths.js";

type Apply = (layer: ConfigLayer, value: string, ctx: { cwd: string; home: string }) => string | undefined;

/**
 * `FIXPOINT_*` variables that set configuration, each with how it is applied; an applier returns
 * an error text (what the value must be) or undefined. Paths are relative to the current folder.
 */
const CONFIG_VARS: Readonly<Record<string, Apply>> = {
  FIXPOINT_DATABASE_URL: (layer, value, ctx) => {
    const url = normaliseDatabaseUrl(value, { baseDir: ctx.cwd, home: ctx.home });
    if (typeof url !== "string")
      return '"sqlite", the path of a SQLite file ending in .db, or a postgres:// URL';
    layer.database = url;
    return undefined;
  },
  FIXPOINT_WORKTREES: (layer, value, ctx) => {
    layer.worktrees = resolvePath(value, ctx.cwd, ctx.home);
    return undefined;
  },
  FIXPOINT_WORKFLOW: (layer, value) => {
    layer.defaults.workflow = value;
    return undefined;
  },
  FIXPOINT_MAX_CYCLES: (layer, value) => {
    const n = wholeNumber(value, 1);
    if (n === undefined) return "a whole number ≥ 1";
    layer.defaults.maxCycles = n;
    return undefined;
  },
  FIXPOINT_BLOCKING_SEVERITY: (layer, value) => {
    const severity = parseSeverity(value);
    if (severity === null) return "a severity: P0, P1, P2, P3 (or critical, high, medium, low)";
    layer.defaults.blockingSeverity = severity;
    return undefined;
  },
  FIXPOINT_FOLLOWUPS: (layer, value) => {
    const flag = booleanWord(value);
    if (flag === undefined) return "true or false";
    layer.defaults.followups = flag;
    return undefined;
  },
  FIXPOINT_FINDINGS_TOKEN_BUDGET: (layer, value) => {
    const n = wholeNumber(value, 1);
    if (n === undefined) return "a whole number ≥ 1";
    layer.defaults.findingsTokenBudget = n;
    return undefined;
  },
  FIXPOINT_BUDGET_USD: (layer, value) => {
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n)) return "a number ≥ 0";
    layer.defaults.budget = { ...layer.defaults.budget, usd: n };
    return undefined;
  },
  FIXPOINT_BUDGET_TOKENS: (layer, value) => {
    const n = wholeNumber(value, 0);
    if (n === undefined) return "a whole number ≥ 0";
    layer.defaults.budget = { ...layer.defaults.budget, tokens: n };
    return undefined;
  },
  FIXPOINT_BASE_BRANCH: (layer, value) => {
    layer.defaults.baseBranch = value;
    return undefined;
  },
  FIXPOINT_PUSH_REMOTE: (layer, value) => {
    if (/^\s*$|^-/.test(value)) return "the name (or URL) of a git remote";
    layer.defaults.pushRemote = value;
    return undefined;
  },
  // Read by src/util/spawner.ts, which has no configuration; checked here so a bad value is an error.
  FIXPOINT_SPAWN_HELPER: (_layer, value) =>
    value === "0" || value === "1"
      ? undefined
      : "0 (start agents and git from this process) or 1 (always from the helper process)",
  // Read by src/store/postgres/native-json-rows.ts and native-line-rows.ts; checked here so a bad value is an error.
  FIXPOINT_NATIVE_ROWS: (_layer, value) =>
    value === "0" || value === "1"
      ? undefined
      : "0 (write a PostgreSQL store's `status` rows in JavaScript) or 1 (with the native addons, where built)",
};

/** Read by `loadConfig` itself or by other parts of fixpoint; known, so never called typos. */
export const OTHER_FIXPOINT_VARS: readonly string[] = [
  "FIXPOINT_HOME",
  "FIXPOINT_USER_CONFIG",
  "FIXPOINT_DEBUG",
];

export const FIXPOINT_ENV_VARS: readonly string[] = [...Object.keys(CONFIG_VARS), ...OTHER_FIXPOINT_VARS];

/**
 * The environment's layer. Empty variables count as unset. A `FIXPOINT_` variable that is not
 * known but is one typo away from a known one is an error (it was surely meant to take effect);
 * other unknown ones are left alone, as they may belong to a newer or older fixpoint.
 */
export function envLayer(env: NodeJS.ProcessEnv, cwd: string): ConfigLayer {
  const layer = emptyLayer("environment");
  const ctx = { cwd, home: homeFrom(env) };
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("FIXPOINT_") || raw === undefined || raw === "") continue;
    const apply = CONFIG_VARS[name];
    if (apply === undefined) {
      if (OTHER_FIXPOINT_VARS.includes(name)) continue;
      const suffixes = FIXPOINT_ENV_VARS.map((v) => v.slice("FIXPOINT_".length));
      const close = didYouMean(name.slice("FIXPOINT_".length), suffixes);
      if (close !== undefined)
        problems.push(`unknown environment variable ${name} (did you mean FIXPOINT_${close}?)`);
      continue;
    }
    const expected = apply(layer, raw, ctx);
    if (expected !== undefined) problems.push(`${name} must be ${expected}, got "${raw}"`);
  }
  if (problems.length > 0) throw new FixpointError("config", problems.join("\n"));
  return layer;
}

function booleanWord(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(word)) return true;
  if (["0", "false", "no", "off"].includes(word)) return false;
  return undefined;
}
