import { type Document, InvalidKdlError, parse } from "@bgotink/kdl";
import type { Diagnostic } from "../errors.js";
import { errorMessage } from "../errors.js";

/**
 * KDL text → Document, never throwing: a syntax error becomes diagnostics with file:line:column,
 * and so does anything else the KDL library throws on hostile input (it has thrown TypeError and
 * RangeError on inputs such as `#` and `/`), and nesting deeper than any fixpoint file needs is
 * refused before the library's recursive parser can overflow the stack on it.
 */
export const MAX_KDL_DEPTH = 64;

export type KdlParse = { ok: true; document: Document } | { ok: false; diagnostics: Diagnostic[] };

/**
 * `locations: false` skips the library's location of every element (a WeakMap entry and two
 * positions each, about 21 per workflow stage): the parse is then 2-3x faster and keeps a third of
 * the memory, but every element reports 1:1. For a reader that reads again with locations
 * whenever it has something to report (checkWorkflowText).
 */
export function parseKdlSafely(text: string, file: string, opts: { locations?: boolean } = {}): KdlParse {
  const deep = tooDeep(text);
  if (deep) {
    return {
      ok: false,
      diagnostics: [
        {
          location: { file, line: deep.line, column: deep.column },
          message: `invalid KDL: blocks nested more than ${MAX_KDL_DEPTH} deep`,
        },
      ],
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

/**
 * Where `{` nesting first exceeds MAX_KDL_DEPTH, skipping quoted strings and comments. An
 * approximation of KDL's grammar that errs on the side of letting the real parser decide.
 */
function tooDeep(text: string): { line: number; column: number } | undefined {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      line++;
      lineStart = i + 1;
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === "\n") {
          line++;
          lineStart = i + 1;
        }
      }
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      i--;
    } else if (c === "{") {
      depth++;
      if (depth > MAX_KDL_DEPTH) return { line, column: i - lineStart + 1 };
    } else if (c === "}") {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}
