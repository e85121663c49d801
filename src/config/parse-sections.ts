import type { Node } from "@bgotink/kdl";
import { parseSeverity } from "../findings/severity.js";
import type { DiagnosticSink } from "../util/kdl-diagnostics.js";
import {
  type FieldSchema,
  getBool,
  getList,
  getNumber,
  getString,
  readNodeFields,
} from "../util/kdl-fields.js";
import type { DefaultsLayer, GateLayer } from "./layer.js";
import type { PathContext } from "./parse-agent.js";
import { resolvePath } from "./paths.js";
import type { ModelPrice } from "./types.js";

const DEFAULTS_FIELDS: FieldSchema = {
  workflow: "string",
  "max-cycles": "positive-int",
  "blocking-severity": "severity",
  followups: "bool",
  "findings-token-budget": "positive-int",
  "prompt-budget": "size",
  "max-stages": "positive-int",
  "base-branch": "string",
  "push-remote": "string",
  "redact-env": "list",
};

/** `defaults { workflow "…"; max-cycles 3; budget usd=10 tokens=4000000; … }` */
export function parseDefaults(node: Node, sink: DiagnosticSink): DefaultsLayer {
  const f = readNodeFields(node, DEFAULTS_FIELDS, { positional: [], special: ["budget"], block: true }, sink);
  const d: DefaultsLayer = {};
  const workflow = getString(f, "workflow");
  if (workflow !== undefined) d.workflow = workflow;
  const maxCycles = getNumber(f, "max-cycles");
  if (maxCycles !== undefined) d.maxCycles = maxCycles;
  const severity = parseSeverity(getString(f, "blocking-severity") ?? "");
  if (severity !== null) d.blockingSeverity = severity;
  const followups = getBool(f, "followups");
  if (followups !== undefined) d.followups = followups;
  const tokenBudget = getNumber(f, "findings-token-budget");
  if (tokenBudget !== undefined) d.findingsTokenBudget = tokenBudget;
  const promptBudget = getNumber(f, "prompt-budget");
  if (promptBudget !== undefined) d.promptBudget = promptBudget;
  const maxStages = getNumber(f, "max-stages");
  if (maxStages !== undefined) d.maxStages = maxStages;
  const baseBranch = getString(f, "base-branch");
  if (baseBranch !== undefined) d.baseBranch = baseBranch;
  const pushRemote = getString(f, "push-remote");
  if (pushRemote !== undefined) {
    if (/^\s*$|^-/.test(pushRemote))
      sink.report(f.where.get("push-remote") ?? node.name, "`push-remote` must name a git remote");
    else d.pushRemote = pushRemote;
  }
  const redactEnv = getList(f, "redact-env");
  if (redactEnv !== undefined) d.redactEnv = redactEnv;
  const [budget, again] = f.special;
  if (again !== undefined) sink.report(again.name, "`budget` is given twice");
  if (budget !== undefined) d.budget = parseBudget(budget, sink);
  return d;
}

function parseBudget(node: Node, sink: DiagnosticSink): DefaultsLayer["budget"] {
  const f = readNodeFields(node, { usd: "number", tokens: "int" }, { positional: [], block: true }, sink);
  const budget: NonNullable<DefaultsLayer["budget"]> = {};
  const usd = getNumber(f, "usd");
  if (usd !== undefined) budget.usd = usd;
  const tokens = getNumber(f, "tokens");
  if (tokens !== undefined) budget.tokens = tokens;
  return budget;
}

/** `gate "name" run="npm test" timeout="10m"` */
export function parseGate(node: Node, sink: DiagnosticSink): GateLayer | undefined {
  const f = readNodeFields(
    node,
    { run: "string", timeout: "duration" },
    { positional: ["name"], block: true },
    sink,
  );
  const name = f.args[0];
  if (!f.complete || name === undefined) return undefined;
  const gate: GateLayer = { name, location: sink.locate(node.name) };
  const run = getString(f, "run");
  if (run !== undefined) {
    if (run.trim() === "") sink.report(f.where.get("run") ?? node.name, "`run` must not be empty");
    else gate.run = run;
  }
  const timeoutMs = getNumber(f, "timeout");
  if (timeoutMs !== undefined) gate.timeoutMs = timeoutMs;
  return gate;
}

const PRICE_FIELDS: FieldSchema = {
  input: "number",
  output: "number",
  "cache-read": "number",
  "cache-write": "number",
};

/** `price "model" input=1.25 output=10 cache-read=0.125`: USD per million tokens. */
export function parsePrice(node: Node, sink: DiagnosticSink): [string, ModelPrice] | undefined {
  const f = readNodeFields(node, PRICE_FIELDS, { positional: ["model"], block: true }, sink);
  const model = f.args[0];
  const inputPerM = getNumber(f, "input");
  const outputPerM = getNumber(f, "output");
  for (const [key, value] of [
    ["input", inputPerM],
    ["output", outputPerM],
  ] as const) {
    if (value === undefined && !f.where.has(key))
      sink.report(node.name, `\`price\` needs \`${key}=\` (USD per million tokens)`);
  }
  if (!f.complete || model === undefined || inputPerM === undefined || outputPerM === undefined)
    return undefined;
  const price: ModelPrice = { inputPerM, outputPerM };
  const cacheRead = getNumber(f, "cache-read");
  if (cacheRead !== undefined) price.cacheReadPerM = cacheRead;
  const cacheWrite = getNumber(f, "cache-write");
  if (cacheWrite !== undefined) price.cacheWritePerM = cacheWrite;
  return [model, price];
}

/** `worktrees "~/somewhere"`: one path, resolved against the file's folder. */
export function parseWorktrees(node: Node, sink: DiagnosticSink, paths: PathContext): string | undefined {
  const f = readNodeFields(node, {}, { positional: ["path"], block: false }, sink);
  const path = f.args[0];
  return f.complete && path !== undefined ? resolvePath(path, paths.baseDir, paths.home) : undefined;
}

/** `database "sqlite"`, `database "postgres://…"` or `database "./state.db"`. */
export function parseDatabase(node: Node, sink: DiagnosticSink, paths: PathContext): string | undefined {
  const f = readNodeFields(node, {}, { positional: ["url"], block: false }, sink);
  const url = f.args[0];
  if (!f.complete || url === undefined) return undefined;
  const checked = normaliseDatabaseUrl(url, paths);
  if (typeof checked === "string") return checked;
  sink.report(node.getArgumentEntry(0)?.value ?? node.name, checked.error);
  return undefined;
}

/**
 * The database setting as the store expects it: `sqlite`, a `postgres://` URL, or an absolute
 * path of a SQLite file. Shared with the `FIXPOINT_DATABASE_URL` reader.
 */
export function normaliseDatabaseUrl(url: string, paths: PathContext): string | { error: string } {
  if (url === "sqlite" || /^postgres(ql)?:\/\//.test(url)) return url;
  if (url.trim() === "") return { error: "the database must not be empty" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    return { error: `unsupported database "${url}": use "sqlite", a SQLite file path, or "postgres://…"` };
  }
  const file = url.replace(/^sqlite:/, "");
  // What the store opens (store/open.ts): said here, where the setting has a file:line:column.
  if (!file.trim().endsWith(".db")) {
    return {
      error: `unsupported database "${url}": a SQLite file's name ends in .db; or use "sqlite" or "postgres://…"`,
    };
  }
  return resolvePath(file, paths.baseDir, paths.home);
}
