import type { Value } from "@bgotink/kdl";
import type { SourceLocation } from "../errors.js";
import { locate } from "../util/kdl-diagnostics.js";
import type { Condition, Route, Transition } from "./types.js";

/**
 * Where things were written, kept beside the Workflow while it is being read and validated so
 * every diagnostic can point at the exact node, property, or character inside a condition.
 */
export interface WorkflowSource {
  file: string;
  /** The `workflow` node (or 1:1 when there is none). */
  workflowLoc: SourceLocation;
  /** The argument of `start`, when present. */
  startLoc?: SourceLocation;
  /** The `from`/`to` properties of transitions and routes. */
  targets: Map<Transition | Route, { from?: SourceLocation; to: SourceLocation }>;
  /** Maps a 0-based offset inside a condition's text to a location in the file. */
  conditions: Map<Condition, (offset: number) => SourceLocation>;
  /** Ids of stages whose declaration was broken (unknown kind, …): they exist for target checks
   *  but kind-specific checks skip them, so one typo yields one diagnostic. */
  brokenStages: Set<string>;
  /** Conditions that failed to parse (kept as `false`); catch-all checks skip their decision. */
  brokenConditions: Set<Condition>;
}

/**
 * Locate offsets inside a string value. The column is the opening quote's column + 1 + the
 * offset, adjusted for escapes that take more characters in the file than in the value
 * (`\"` is two characters in the file, one in the condition) and for raw strings (`#"…"#`).
 * Multi-line strings point at their start.
 */
export function stringLocator(value: Value, file: string): (offset: number) => SourceLocation {
  const base = locate(value, file);
  const raw = value.representation ?? JSON.stringify(value.value);
  if (raw.includes("\n")) return () => base;
  const rawOffsets = rawOffsetTable(raw);
  return (offset) => ({
    file,
    line: base.line,
    column: base.column + (rawOffsets[Math.min(offset, rawOffsets.length - 1)] ?? offset),
  });
}

/** For each decoded character index (plus one past the end), its index in the raw literal. */
function rawOffsetTable(raw: string): number[] {
  const table: number[] = [];
  const hashes = /^#*/.exec(raw)?.[0].length ?? 0;
  if (hashes > 0) {
    // Raw string: no escapes; content starts after `#…#"`.
    const contentLength = raw.length - 2 * (hashes + 1);
    for (let i = 0; i <= contentLength; i++) table.push(hashes + 1 + i);
    return table;
  }
  let i = 1;
  while (i < raw.length - 1) {
    table.push(i);
    if (raw[i] !== "\\") {
      i++;
    } else if (raw[i + 1] === "u") {
      i = raw.indexOf("}", i) + 1 || i + 2;
    } else {
      i += 2;
    }
  }
  table.push(i);
  return table;
}
