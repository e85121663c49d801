import type { Entry, Identifier, Node, Value } from "@bgotink/kdl";
import { parseSeverity } from "../findings/severity.js";
import { didYouMeanSuffix } from "./did-you-mean.js";
import { parseDuration } from "./duration.js";
import { type DiagnosticSink, describeNode } from "./kdl-diagnostics.js";
import { parseSize } from "./size.js";

/**
 * Typed reading of KDL nodes, the one field reader of fixpoint.kdl and workflow files: every
 * reader reports a wrong value where it was written and returns undefined, so reading carries on
 * and collects every problem. `convert` is the one check of a value against its kind.
 *
 * `readNodeFields` is the schema reader of config nodes. Every field of a node can be written either as a property
 * (`agent "a" model="x"`) or as a child node with one argument (`agent "a" { model "x" }`).
 * List fields take several arguments as a child (`allow-authors "alice" "bob"`) and, as a
 * property, also absorb the bare arguments that follow it on the same node
 * (`allow-authors="alice" "bob"`), which is the closest KDL comes to a list-valued property.
 */
export type FieldKind =
  | "string"
  | "int"
  | "positive-int"
  | "number"
  | "bool"
  | "duration"
  | "size"
  | "severity"
  | "list";
/** A field is a kind, or a list of the strings it may be (an enumeration). */
export type FieldSchema = Readonly<Record<string, FieldKind | readonly string[]>>;
export type FieldValue = string | number | boolean | string[];

type Located = Value | Identifier;

export interface ReadOptions {
  /** Labels of the leading string arguments the node takes, e.g. `["name"]` for `agent "name"`. */
  positional: readonly string[];
  /** Child nodes the caller reads itself (e.g. `env { … }`); they are returned in `special`. */
  special?: readonly string[];
  /** Whether a `{ … }` block is allowed at all. */
  block: boolean;
}

export interface NodeFields {
  /** The positional arguments; `complete` is false when one was missing or not a string. */
  args: string[];
  complete: boolean;
  values: Map<string, FieldValue>;
  /** Where each field's value was written, for checks the caller makes afterwards. */
  where: Map<string, Located>;
  special: Node[];
}

export function readNodeFields(
  node: Node,
  schema: FieldSchema,
  opts: ReadOptions,
  sink: DiagnosticSink,
): NodeFields {
  const out: NodeFields = { args: [], complete: true, values: new Map(), where: new Map(), special: [] };
  const what = describeNode(node);
  let listProp: string | undefined;
  for (const entry of node.entries) {
    const name = entry.getName();
    if (name === null) {
      if (out.args.length < opts.positional.length) {
        const label = opts.positional[out.args.length] ?? "argument";
        const value = entry.getValue();
        if (typeof value !== "string") {
          sink.report(entry.value, `the ${label} of \`${node.getName()}\` must be a string`);
          out.complete = false;
        }
        out.args.push(String(value));
      } else if (listProp !== undefined) {
        appendToList(out, listProp, entry, sink);
      } else {
        sink.report(entry, `unexpected argument to \`${what}\`; give fields as name=value`);
      }
      continue;
    }
    const kind = schema[name];
    listProp = kind === "list" ? name : undefined;
    if (kind === undefined) {
      sink.report(
        entry,
        `unknown property \`${name}\` on \`${node.getName()}\`${didYouMeanSuffix(name, Object.keys(schema))}`,
      );
      continue;
    }
    if (out.values.has(name)) sink.report(entry, `\`${name}\` is set twice on \`${what}\``);
    out.where.set(name, entry.value);
    const value = convert(kind, name, entry.value, sink);
    if (value !== undefined) out.values.set(name, value);
  }
  if (out.args.length < opts.positional.length) {
    const missing = opts.positional.slice(out.args.length).join(", ");
    sink.report(node.name, `\`${node.getName()}\` needs its ${missing}, e.g. \`${node.getName()} "…"\``);
    out.complete = false;
  }
  readChildren(node, schema, opts, sink, out);
  return out;
}

function readChildren(
  node: Node,
  schema: FieldSchema,
  opts: ReadOptions,
  sink: DiagnosticSink,
  out: NodeFields,
): void {
  if (node.children === null) return;
  const what = describeNode(node);
  if (!opts.block) {
    sink.report(node.children, `\`${node.getName()}\` takes no { } block`);
    return;
  }
  const special = opts.special ?? [];
  for (const child of node.children.nodes) {
    const name = child.getName();
    if (special.includes(name)) {
      out.special.push(child);
      continue;
    }
    const kind = schema[name];
    if (kind === undefined) {
      const known = [...Object.keys(schema), ...special];
      sink.report(child.name, `unknown field \`${name}\` in \`${what}\`${didYouMeanSuffix(name, known)}`);
      continue;
    }
    if (out.values.has(name)) sink.report(child.name, `\`${name}\` is set twice in \`${what}\``);
    out.where.set(name, child.getArgumentEntry(0)?.value ?? child.name);
    const value = readChildValue(child, kind, sink);
    if (value !== undefined) out.values.set(name, value);
  }
}

function readChildValue(
  child: Node,
  kind: FieldKind | readonly string[],
  sink: DiagnosticSink,
): FieldValue | undefined {
  const name = child.getName();
  const extra = child.getPropertyEntries()[0];
  if (extra !== undefined) sink.report(extra, `\`${name}\` takes no properties`);
  if (child.children !== null) sink.report(child.children, `\`${name}\` takes no { } block`);
  const args = child.getArgumentEntries();
  if (kind === "list") {
    const items: string[] = [];
    for (const arg of args) {
      const v = convert("string", name, arg.value, sink);
      if (typeof v === "string") items.push(v);
    }
    return items;
  }
  const [first, second] = args;
  if (first === undefined) {
    sink.report(child.name, `\`${name}\` needs a value`);
    return undefined;
  }
  if (second !== undefined) sink.report(second, `\`${name}\` takes one value`);
  return convert(kind, name, first.value, sink);
}

function appendToList(out: NodeFields, prop: string, entry: Entry, sink: DiagnosticSink): void {
  const item = convert("string", prop, entry.value, sink);
  const current = out.values.get(prop);
  if (typeof item === "string" && Array.isArray(current)) current.push(item);
}

/**
 * Checks one value against its kind; reports (at `at`, by default the value itself) and returns
 * undefined when it does not fit.
 */
export function convert(
  kind: FieldKind | readonly string[],
  name: string,
  value: Value,
  sink: DiagnosticSink,
  at: Value | Entry = value,
): FieldValue | undefined {
  const v = value.getValue();
  const shown = value.representation ?? JSON.stringify(v);
  const fail = (expected: string, suffix = ""): undefined => {
    sink.report(at, `\`${name}\` must be ${expected}, got ${shown}${suffix}`);
    return undefined;
  };
  if (typeof kind !== "string") {
    if (typeof v === "string" && kind.includes(v)) return v;
    return fail(`one of ${kind.join(", ")}`, typeof v === "string" ? didYouMeanSuffix(v, kind) : "");
  }
  switch (kind) {
    case "string":
      return typeof v === "string" ? v : fail("a string");
    case "list":
      return typeof v === "string" ? [v] : fail("a string");
    case "bool":
      return typeof v === "boolean" ? v : fail("#true or #false");
    case "number":
      return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : fail("a number ≥ 0");
    case "int":
      return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : fail("a whole number ≥ 0");
    case "positive-int":
      return typeof v === "number" && Number.isInteger(v) && v >= 1 ? v : fail("a whole number ≥ 1");
    case "duration": {
      const ms = typeof v === "string" ? parseDuration(v) : null;
      return ms ?? fail('a duration with a unit, such as "30s", "10m" or "1h30m"');
    }
    case "size": {
      const bytes = typeof v === "string" || typeof v === "number" ? parseSize(v) : undefined;
      return bytes ?? fail('a size in bytes, such as 65536, "64KiB" or "1MiB"');
    }
    case "severity": {
      const severity = parseSeverity(v);
      return severity ?? fail("a severity: P0, P1, P2, P3 (or critical, high, medium, low)");
    }
  }
}

export function getString(f: NodeFields, key: string): string | undefined {
  const v = f.values.get(key);
  return typeof v === "string" ? v : undefined;
}

export function getNumber(f: NodeFields, key: string): number | undefined {
  const v = f.values.get(key);
  return typeof v === "number" ? v : undefined;
}

export function getBool(f: NodeFields, key: string): boolean | undefined {
  const v = f.values.get(key);
  return typeof v === "boolean" ? v : undefined;
}

export function getList(f: NodeFields, key: string): string[] | undefined {
  const v = f.values.get(key);
  return Array.isArray(v) ? v : undefined;
}

/** A string field that must be an http(s) URL; anything else is reported where it was written. */
export function getHttpUrl(f: NodeFields, key: string, node: Node, sink: DiagnosticSink): string | undefined {
  const text = getString(f, key);
  if (text === undefined) return undefined;
  let ok = false;
  try {
    const url = new URL(text);
    ok = url.protocol === "http:" || url.protocol === "https:";
  } catch {
    ok = false;
  }
  if (!ok) sink.report(f.where.get(key) ?? node.name, `\`${key}\` must be an http(s) URL, got "${text}"`);
  return ok ? text : undefined;
}

// ---- property readers (workflow nodes: properties only, read one by one)

/** A node's properties by name; a property given twice is reported (KDL would keep the last). */
export function propertyMap(node: Node, sink: DiagnosticSink): Map<string, Entry> {
  const map = new Map<string, Entry>();
  // Named once: describeNode scans the node's entries, and a node may repeat a property 100,000 times.
  let described: string | undefined;
  for (const entry of node.getPropertyEntries()) {
    const name = entry.getName() ?? "";
    if (map.has(name)) {
      described ??= describeNode(node);
      sink.report(entry, `\`${name}\` is set twice on \`${described}\``);
    }
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
      sink.report(entry, `unknown property \`${name}\` on ${where}${didYouMeanSuffix(name, allowed)}`);
    }
  }
}

/** The node's single string argument (an id or a name); reports a missing, extra or non-string one. */
export function singleStringArg(node: Node, what: string, sink: DiagnosticSink): string | undefined {
  const args = node.getArgumentEntries();
  const first = args[0];
  const name = node.getName();
  if (first === undefined) {
    sink.report(node, `\`${name}\` needs ${what} as its argument: \`${name} "…"\``);
    return undefined;
  }
  for (const extra of args.slice(1)) sink.report(extra, `\`${name}\` takes one argument, ${what}`);
  const value = first.getValue();
  if (typeof value !== "string") {
    sink.report(first, `${what} must be a string in double quotes`);
    return undefined;
  }
  return value;
}

/** A property's value checked against `kind` (see convert); undefined when absent or wrong. */
function readProperty(
  entry: Entry | undefined,
  kind: FieldKind,
  sink: DiagnosticSink,
): FieldValue | undefined {
  return entry === undefined ? undefined : convert(kind, entry.getName() ?? "", entry.value, sink, entry);
}

export function readString(entry: Entry | undefined, sink: DiagnosticSink): string | undefined {
  const v = readProperty(entry, "string", sink);
  return typeof v === "string" ? v : undefined;
}

export function readBoolean(entry: Entry | undefined, sink: DiagnosticSink): boolean | undefined {
  const v = readProperty(entry, "bool", sink);
  return typeof v === "boolean" ? v : undefined;
}

/** A whole number ≥ min (0 or 1). */
export function readInteger(entry: Entry | undefined, min: 0 | 1, sink: DiagnosticSink): number | undefined {
  const v = readProperty(entry, min === 1 ? "positive-int" : "int", sink);
  return typeof v === "number" ? v : undefined;
}
