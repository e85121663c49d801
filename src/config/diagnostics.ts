import { type Document, type Entry, getLocation, type Identifier, type Node, type Value } from "@bgotink/kdl";
import type { Diagnostic, SourceLocation } from "../errors.js";

type Located = Document | Entry | Identifier | Node | Value;

/** Collects every problem in one file so the user sees them all at once, not one per run. */
export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly file: string) {}

  /** The 1-based position where `element` starts (parsed with `storeLocations`). */
  at(element: Located): SourceLocation {
    const start = getLocation(element)?.start;
    return { file: this.file, line: start?.line ?? 1, column: start?.column ?? 1 };
  }

  report(element: Located, message: string): void {
    this.diagnostics.push({ location: this.at(element), message });
  }
}

/** `agent "reviewer"`, `gate "test"`, `defaults`: how a node is named in messages. */
export function describeNode(node: Node): string {
  const first = node.getArgument(0);
  return typeof first === "string" ? `${node.getName()} "${first}"` : node.getName();
}
