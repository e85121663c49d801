import { dirname } from "node:path";
import type { Node } from "@bgotink/kdl";
import { type Diagnostic, DiagnosticsError } from "../errors.js";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import { DiagnosticSink } from "../util/kdl-diagnostics.js";
import { parseKdlSafely } from "../util/parse-kdl.js";
import { type ConfigLayer, emptyLayer } from "./layer.js";
import { type PathContext, parseAgent } from "./parse-agent.js";
import { parseGithub } from "./parse-github.js";
import { parseNotify } from "./parse-notify.js";
import { parseDatabase, parseDefaults, parseGate, parsePrice, parseWorktrees } from "./parse-sections.js";

/** The top-level nodes of `fixpoint.kdl`; docs/configuration.md describes each. */
export const TOP_LEVEL_NODES = [
  "agent",
  "defaults",
  "gate",
  "worktrees",
  "price",
  "github",
  "database",
  "notify",
] as const;

export interface ParseConfigOptions {
  /** For `~` in paths; default `$HOME`. */
  home: string;
}

/**
 * Reads one config file's text into a layer. Every problem in the file is collected; when there
 * is any, throws `DiagnosticsError("config", …)` listing them all with `file:line:column`.
 * Relative paths (`script`, `command`, `worktrees`, a SQLite file) are made absolute against
 * the file's folder.
 */
export function parseConfigText(text: string, file: string, opts: ParseConfigOptions): ConfigLayer {
  const { layer, diagnostics } = readConfigLayer(text, file, opts);
  if (diagnostics.length > 0) throw new DiagnosticsError("config", diagnostics);
  return layer;
}

/** Like `parseConfigText`, but returns the problems instead of throwing. */
export function readConfigLayer(
  text: string,
  file: string,
  opts: ParseConfigOptions,
): { layer: ConfigLayer; diagnostics: Diagnostic[] } {
  const layer = emptyLayer(file);
  const sink = new DiagnosticSink(file);
  const parsed = parseKdlSafely(text, file);
  if (!parsed.ok) return { layer, diagnostics: parsed.diagnostics };
  const doc = parsed.document;
  const paths: PathContext = { baseDir: dirname(file), home: opts.home };
  const seen = new Set<string>();
  for (const node of doc.nodes) readTopLevel(node, layer, sink, paths, seen);
  return { layer, diagnostics: sink.diagnostics };
}

/** Settings that may appear once per file. */
const ONCE = new Set(["defaults", "github", "worktrees", "database", "notify"]);

/**
 * Whether `node` repeats a once-only setting or a named one (`agent "x"` twice) of this file,
 * reporting it if so. Nodes without a usable name are reported by their own reader instead.
 */
function isRepeated(node: Node, sink: DiagnosticSink, seen: Set<string>): boolean {
  const name = node.getName();
  const key = `${name}\u0000${String(node.getArgument(0) ?? "")}`;
  const once = ONCE.has(name);
  const named =
    (name === "agent" || name === "gate" || name === "price") && typeof node.getArgument(0) === "string";
  if ((once && seen.has(name)) || (named && seen.has(key))) {
    sink.report(
      node.name,
      `\`${once ? name : `${name} "${String(node.getArgument(0))}"`}\` is given twice in this file`,
    );
    return true;
  }
  seen.add(once ? name : key);
  return false;
}

function readTopLevel(
  node: Node,
  layer: ConfigLayer,
  sink: DiagnosticSink,
  paths: PathContext,
  seen: Set<string>,
) {
  if (isRepeated(node, sink, seen)) return;
  const name = node.getName();
  switch (name) {
    case "agent": {
      const agent = parseAgent(node, sink, paths);
      if (agent !== undefined) layer.agents.push(agent);
      return;
    }
    case "gate": {
      const gate = parseGate(node, sink);
      if (gate !== undefined) layer.gates.push(gate);
      return;
    }
    case "price": {
      const price = parsePrice(node, sink);
      if (price !== undefined) layer.prices[price[0]] = price[1];
      return;
    }
    case "defaults":
      layer.defaults = parseDefaults(node, sink);
      return;
    case "github":
      layer.github = parseGithub(node, sink);
      return;
    case "worktrees": {
      const worktrees = parseWorktrees(node, sink, paths);
      if (worktrees !== undefined) layer.worktrees = worktrees;
      return;
    }
    case "database": {
      const database = parseDatabase(node, sink, paths);
      if (database !== undefined) layer.database = database;
      return;
    }
    case "notify": {
      const notify = parseNotify(node, sink);
      if (notify !== undefined) layer.notify = notify;
      return;
    }
    default:
      sink.report(node.name, `unknown setting \`${name}\`${didYouMeanSuffix(name, TOP_LEVEL_NODES)}`);
  }
}
