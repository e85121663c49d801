import { type Document, type Entry, getLocation, type Identifier, type Node, type Value } from "@bgotink/kdl";
import type { Diagnostic, SourceLocation } from "../errors.js";

/** Anything in a KDL document that has a place in the file (parsed with `storeLocations`). */
export type Located = Document | Entry | Identifier | Node | Value;

/** The 1-based position where `element` starts; 1:1 when the parser kept none. */
export function locate(element: Located, file: string): SourceLocation {
  const start = getLocation(element)?.start;
  return { file, line: start?.line ?? 1, column: start?.column ?? 1 };
}

/**
 * Collects every problem in one KDL file (fixpoint.kdl or a workflow) so the user sees them all
 * at once, not one per run. The one sink of the config and workflow readers.
 */
export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly file: string) {}

  /** Where `element` starts in this file. */
  locate(element: Located): SourceLocation {
    return locate(element, this.file);
  }

  /** A problem at a KDL element (node, name, entry, value). */
  report(element: Located, message: string): void {
    this.reportAt(this.locate(element), message);
  }

  /** A problem at a location worked out by the caller (inside a string, a parse error). */
  reportAt(location: SourceLocation, message: string): void {
    this.diagnostics.push({ location, message });
  }
}

/** `agent "reviewer"`, `gate "test"`, `defaults`: how a node is named in messages. */
export function describeNode(node: Node): string {
  const first = node.getArgument(0);
  return typeof first === "string" ? `${node.getName()} "${first}"` : node.getName();
}
