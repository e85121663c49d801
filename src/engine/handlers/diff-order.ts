/**
 * The whole diff, ordered for the prompt cache: the files the last review already saw unchanged
 * come first, in git's order, then the files changed since, in git's order. A reviewer still sees
 * every file; a later cycle's prompt then repeats the earlier cycle's bytes for as long as
 * possible, which is what a provider's prefix cache can serve. Pure and deterministic, so every
 * reviewer of one cycle gets the same bytes.
 */
export function stableFirst(diff: string, changedSince: ReadonlySet<string>): string {
  if (changedSince.size === 0) return diff;
  const files = splitFiles(diff);
  if (files.length < 2) return diff;
  const kept = files.filter((f) => !touches(f, changedSince));
  const changed = files.filter((f) => touches(f, changedSince));
  return [...kept, ...changed].map((f) => f.text).join("");
}

interface FileDiff {
  text: string;
  paths: string[];
}

/** `diff --git a/X b/Y` sections; text before the first header (none from git) stays first. */
function splitFiles(diff: string): FileDiff[] {
  const starts = [...diff.matchAll(/^diff --git /gm)].map((m) => m.index);
  if (starts.length === 0) return [{ text: diff, paths: [] }];
  const out: FileDiff[] = [];
  if ((starts[0] ?? 0) > 0) out.push({ text: diff.slice(0, starts[0]), paths: [] });
  for (const [i, start] of starts.entries()) {
    const text = diff.slice(start, starts[i + 1] ?? diff.length);
    out.push({ text, paths: pathsOf(text) });
  }
  return out;
}

function touches(f: FileDiff, changed: ReadonlySet<string>): boolean {
  return f.paths.some((p) => changed.has(p));
}

/** Both sides of a section's header and its `---`/`+++` lines (renames have two paths). */
function pathsOf(section: string): string[] {
  const paths = new Set<string>();
  const header = /^diff --git a\/(.+?) b\/(.+)$/m.exec(section);
  if (header?.[1]) paths.add(header[1]);
  if (header?.[2]) paths.add(header[2]);
  for (const m of section.matchAll(/^(?:---|\+\+\+) [ab]\/(.+)$/gm)) if (m[1]) paths.add(m[1]);
  for (const m of section.matchAll(/^rename (?:from|to) (.+)$/gm)) if (m[1]) paths.add(m[1]);
  return [...paths];
}

/** The paths a diff touches. */
export function diffPaths(diff: string): Set<string> {
  return new Set(splitFiles(diff).flatMap((f) => f.paths));
}
