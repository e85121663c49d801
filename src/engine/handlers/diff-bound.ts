/** Diffs beyond this many characters are cut, saying so, to keep prompts bounded. */
export const MAX_DIFF_CHARS = 120_000;

export function boundDiff(diff: string, max = MAX_DIFF_CHARS): string {
  if (diff.trim() === "") return "(empty diff)";
  if (diff.length <= max) return diff;
  const cut = diff.slice(0, max);
  const files = (diff.slice(max).match(/^diff --git /gm) ?? []).length;
  return `${cut}\n[diff truncated: ${diff.length - max} more characters${files ? `, ${files} more files` : ""}]`;
}
