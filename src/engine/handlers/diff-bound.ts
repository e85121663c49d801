import { escapeFences } from "../../findings/fence.js";
import { byteSize } from "../../findings/select.js";

/**
 * A diff inside a prompt's byte budget (issue 10). A diff that fits is kept whole. One that does
 * not is cut at file boundaries, deterministically: the largest files are summarised by name and
 * a stat line (in their place, so the diff keeps git's order and a later cycle repeats the
 * earlier bytes up to the first change) until the rest fits; a trailer names how many files were
 * summarised and the command that shows them. Sizes are measured as the text will stand inside
 * its fence (fence.ts breaks backtick runs, which adds bytes).
 *
 * The result is at most `maxBytes` whenever `maxBytes` ≥ MIN_DIFF_BYTES; below that only the
 * trailer is returned. The same diff and limit always give the same bytes.
 */
export const MIN_DIFF_BYTES = 512;

export interface DiffBound {
  text: string;
  /** Files shown by name and stat line only. */
  summarised: number;
}

interface FileSection {
  text: string;
  name: string;
  bytes: number;
}

export function boundDiffWithin(diff: string, maxBytes: number, showCommand: string): DiffBound {
  if (diff.trim() === "") return { text: "(empty diff)", summarised: 0 };
  if (size(diff) <= maxBytes) return { text: diff, summarised: 0 };
  const files = splitFiles(diff);
  const trailer = (n: number, listed = n) =>
    `[diff cut to fit the prompt budget: ${n} of ${files.length} file${files.length === 1 ? "" : "s"} shown as a stat line only${listed < n ? ` (${n - listed} not even named)` : ""}; \`${showCommand}\` shows the whole diff]`;
  // Largest first; ties in git order, so the choice never depends on anything but the diff.
  const bySize = files.map((f, i) => ({ f, i })).sort((a, b) => b.f.bytes - a.f.bytes || a.i - b.i);
  const summarised = new Set<number>();
  let total = files.reduce((n, f) => n + f.bytes + 1, 0);
  const summaryOf = files.map((f) => statLine(f));
  for (const { f, i } of bySize) {
    if (total + size(trailer(summarised.size)) <= maxBytes) break;
    summarised.add(i);
    total += size(summaryOf[i] as string) - f.bytes;
  }
  const parts = files.map((f, i) => (summarised.has(i) ? (summaryOf[i] as string) : f.text));
  const text = `${parts.join("\n")}\n${trailer(summarised.size)}`;
  if (size(text) <= maxBytes) return { text, summarised: summarised.size };
  // Even the names do not fit: as many stat lines as fit, in git order, then the count of the rest.
  const lines: string[] = [];
  let used = 0;
  for (const s of summaryOf) {
    const next = used + size(s) + 1;
    if (next + size(trailer(files.length, lines.length + 1)) > maxBytes) break;
    lines.push(s);
    used = next;
  }
  return { text: [...lines, trailer(files.length, lines.length)].join("\n"), summarised: files.length };
}

/** `diff --git` sections in git's order; text before the first one stays with it. */
function splitFiles(diff: string): FileSection[] {
  const starts = [...diff.matchAll(/^diff --git /gm)].map((m) => m.index ?? 0);
  if (starts.length === 0 || starts[0] !== 0) starts.unshift(0);
  const body = diff.endsWith("\n") ? diff.slice(0, -1) : diff;
  return starts.map((start, k) => {
    const end = k + 1 < starts.length ? (starts[k + 1] as number) - 1 : body.length;
    const text = body.slice(start, Math.max(start, end));
    const header = /^diff --git a\/(.*?) b\/(.*)$/m.exec(text.split("\n", 1)[0] ?? "");
    return { text, name: header?.[2] ?? "(diff header)", bytes: size(text) };
  });
}

/** `path | +12 -3 lines, 4.2 KiB (summarised)`: what a reader needs to ask for the file. */
function statLine(f: FileSection): string {
  let added = 0;
  let removed = 0;
  for (const line of f.text.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return `${f.name.replace(/[\r\n]/g, " ")} | +${added} -${removed} lines, ${(f.bytes / 1024).toFixed(1)} KiB (summarised)`;
}

function size(text: string): number {
  return byteSize(escapeFences(text));
}
