import { existsSync, readFileSync } from "node:fs";

/**
 * The records of a JSON-lines file the fixture agents append to (one object a line), oldest
 * first; none when the file was never written. Blank lines are passed over.
 */
export function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}
