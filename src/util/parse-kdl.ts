import { type Document, InvalidKdlError, parse } from "@bgotink/kdl";
import type { Diagnostic } from "../errors.js";
import { errorMessage } from "../errors.js";
import { kdlPosition, scanKdl } from "./kdl-scan.js";

export type KdlParse = { ok: true; document: Document } | { ok: false; diagnostics: Diagnostic[] };

/**
 * KDL text → Document, never throwing: a syntax error becomes diagnostics with file:line:column,
 * and so does anything else the KDL library throws on hostile input (it has thrown TypeError and
 * RangeError on inputs such as `#` and `/`). What the library handles badly (nesting deep enough
 * to overflow its stack, a string with an error on each of thousands of lines) is found by
 * scanKdl first and refused without parsing.
 *
 * `locations: false` skips the library's location of every element (a WeakMap entry and two
 * positions each, about 21 per workflow stage): the parse is then 2-3x faster and keeps a third of
 * the memory, but every element reports 1:1. For a reader that reads again with locations
 * whenever it has something to report (checkWorkflowText).
 */
export function parseKdlSafely(text: string, file: string, opts: { locations?: boolean } = {}): KdlParse {
  const problem = scanKdl(text);
  if (problem) {
    return {
      ok: false,
      diagnostics: [{ location: { file, ...kdlPosition(text, problem.offset) }, message: problem.message }],
    };
  }
  try {
    return { ok: true, document: parse(text, { storeLocations: opts.locations ?? true }) };
  } catch (e) {
    if (e instanceof InvalidKdlError) return { ok: false, diagnostics: kdlDiagnostics(e, file) };
    return {
      ok: false,
      diagnostics: [{ location: { file, line: 1, column: 1 }, message: `invalid KDL: ${errorMessage(e)}` }],
    };
  }
}

function kdlDiagnostics(error: InvalidKdlError, file: string): Diagnostic[] {
  return [...error.flat()].map((e) => {
    const start = e.start ?? e.token?.start;
    // The library appends " at line:column" to some messages; the location is reported anyway.
    const message = e.message.replace(/ at \d+:\d+$/, "");
    return {
      location: { file, line: start?.line ?? 1, column: start?.column ?? 1 },
      message: `invalid KDL: ${message}`,
    };
  });
}
