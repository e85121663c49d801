import { readFileSync } from "node:fs";
import { join } from "node:path";
import { foldEvents, type StreamEvent, type StreamSummary } from "./events.js";

/** Test helper: a recorded stream from test/fixtures/streams, folded through a parser. */
export function fixtureLines(name: string): string[] {
  const path = join(import.meta.dirname, "..", "..", "..", "test", "fixtures", "streams", name);
  return readFileSync(path, "utf8").split("\n");
}

export function foldLines(lines: string[], parse: (line: string) => StreamEvent[]): StreamSummary {
  return foldEvents(lines.flatMap(parse));
}
