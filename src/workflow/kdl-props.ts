import type { Entry, Node } from "@bgotink/kdl";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import type { DiagnosticSink } from "./source-info.js";

/**
 * Typed access to KDL node arguments and properties. Each reader reports a wrong type at the
 * property itself and returns undefined, so reading carries on and collects every problem.
 */

/** A node's properties by name; a property given twice is reported (KDL would keep the last). */
export function propertyMap(node: Node, sink: DiagnosticSink): Map<string, Entry> {
  const map = new Map<string, Entry>();
  for (const entry of node.getPropertyEntries()) {
    const name = entry.getName() ?? "";
    if (map.has(name)) sink.on(entry, `property \`${name}\` is given twice`);
    map.set(name, entry);
  }
  return map;
}

/** Report properties not in `allowed`, suggesting the closest allowed one. */
export function rejectUnknown(
  props: Map<string, Entry>,
  allowed: readonly string[],
  where: string,
  sink: DiagnosticSink,
): void {
  for (const [name, entry] of props) {
    if (!allowed.includes(name)) {
      sink.on(entry, `unknown property \`${name}\` on ${where}${didYouMeanSuffix(name, allowed)}`);
    }
  }
}

/** The node's single string argument (an id or a name); reports a missing, extra or non-string one. */
export function singleStringArg(node: Node, what: string, sink: DiagnosticSink): string | undefined {
  const args = node.getArgumentEntries();
  const first = args[0];
  const name = node.getName();
  if (first === undefined) {
    sink.on(node, `\`${name}\` needs ${what} as its argument: \`${name} "…"\``);
    return undefined;
  }
  for (const extra of args.slice(1)) sink.on(extra, `\`${name}\` takes one argument, ${what}`);
  const value = first.getValue();
  if (typeof value !== "string") {
    sink.on(first, `${what} must be a string in double quotes`);
    return undefined;
  }
  return value;
}

export function readString(entry: Entry | undefined, sink: DiagnosticSink): string | undefined {
  if (entry === undefined) return undefined;
  const value = entry.getValue();
  if (typeof value === "string") return value;
  sink.on(entry, `\`${entry.getName()}\` must be a string in double quotes`);
  return undefined;
}

export function readBoolean(entry: Entry | undefined, sink: DiagnosticSink): boolean | undefined {
  if (entry === undefined) return undefined;
  const value = entry.getValue();
  if (typeof value === "boolean") return value;
  sink.on(entry, `\`${entry.getName()}\` must be #true or #false`);
  return undefined;
}

/** A whole number ≥ min. */
export function readInteger(entry: Entry | undefined, min: number, sink: DiagnosticSink): number | undefined {
  if (entry === undefined) return undefined;
  const value = entry.getValue();
  if (typeof value === "number" && Number.isInteger(value) && value >= min) return value;
  sink.on(entry, `\`${entry.getName()}\` must be a whole number ≥ ${min}`);
  return undefined;
}
