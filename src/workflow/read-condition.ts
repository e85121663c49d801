import type { Entry } from "@bgotink/kdl";
import type { DiagnosticSink } from "../util/kdl-diagnostics.js";
import { parseCondition } from "./condition/parser.js";
import { stringLocator, type WorkflowSource } from "./source-info.js";
import type { Condition } from "./types.js";

export interface ReadContext {
  sink: DiagnosticSink;
  source: WorkflowSource;
}

/**
 * A `when=` property as a Condition. `when=#true`/`#false` are accepted as the literals. A syntax
 * error is reported at the offending character inside the string and yields a `false` placeholder
 * recorded in `source.brokenConditions`, so reading carries on without follow-on errors.
 */
export function readCondition(entry: Entry, ctx: ReadContext): Condition {
  const value = entry.getValue();
  if (typeof value === "boolean") {
    return { text: String(value), expr: { type: "literal", value, pos: 0 } };
  }
  if (typeof value !== "string") {
    ctx.sink.report(entry, "`when` must be a condition in double quotes");
    return broken(String(value), ctx);
  }
  const locateOffset = stringLocator(entry.value, ctx.sink.file);
  const parsed = parseCondition(value);
  if (!parsed.ok) {
    ctx.sink.reportAt(locateOffset(parsed.offset), `invalid condition: ${parsed.message}`);
    return broken(value, ctx);
  }
  ctx.source.conditions.set(parsed.condition, locateOffset);
  return parsed.condition;
}

function broken(text: string, ctx: ReadContext): Condition {
  const condition: Condition = { text, expr: { type: "literal", value: false, pos: 0 } };
  ctx.source.brokenConditions.add(condition);
  return condition;
}

/** A route with no `when` always matches. */
export function catchAll(): Condition {
  return { text: "true", expr: { type: "literal", value: true, pos: 0 } };
}
