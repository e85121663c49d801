/**
 * A unified diff (`git diff`) split into files and lines with their numbers in the new file, so
 * the task page can show each finding under the line it is about. Tolerant: a line it does not
 * understand is kept as `meta`, never dropped, so every input line appears exactly once.
 */

export type DiffLineKind = "add" | "del" | "ctx" | "hunk" | "meta";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** Line number in the new file (add and ctx lines). */
  newLine: number | null;
}

export interface DiffFile {
  /** Path in the new tree (the old one for a deletion); null before the first `diff --git`. */
  path: string | null;
  lines: DiffLine[];
}

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

function pathOf(header: string): string | null {
  const m = /^diff --git a\/(.*) b\/(.*)$/.exec(header);
  return m ? (m[2] ?? null) : null;
}

export function parseUnifiedDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let next: number | null = null;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("diff --git ")) {
      file = { path: pathOf(line), lines: [{ kind: "meta", text: line, newLine: null }] };
      files.push(file);
      next = null;
      continue;
    }
    if (!file) {
      file = { path: null, lines: [] };
      files.push(file);
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      next = Number(hunk[1]);
      file.lines.push({ kind: "hunk", text: line, newLine: null });
    } else if (next !== null && line.startsWith("+")) {
      file.lines.push({ kind: "add", text: line, newLine: next++ });
    } else if (next !== null && line.startsWith("-")) {
      file.lines.push({ kind: "del", text: line, newLine: null });
    } else if (next !== null && line.startsWith(" ")) {
      file.lines.push({ kind: "ctx", text: line, newLine: next++ });
    } else {
      if (line.startsWith("+++ b/") && file.path === null) file.path = line.slice(6);
      file.lines.push({ kind: "meta", text: line, newLine: null });
    }
  }
  return files;
}
