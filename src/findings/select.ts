import { numericId } from "./registry-core.js";

/** UTF-8 size: budgets are in bytes because that is what a provider bills and caches. */
export function byteSize(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** `F-1–F-40, F-42, F-45–F-50`: consecutive ids collapse, so a long history stays short. */
function idRanges(ids: readonly string[]): string[] {
  const numbers = ids.map(numericId).filter((n) => n !== Number.MAX_SAFE_INTEGER);
  numbers.sort((a, b) => a - b);
  const out: string[] = [];
  let start = numbers[0];
  let prev = start;
  for (let i = 1; i <= numbers.length; i++) {
    const n = numbers[i];
    if (n !== undefined && prev !== undefined && n === prev + 1) {
      prev = n;
      continue;
    }
    if (start !== undefined && prev !== undefined)
      out.push(start === prev ? `F-${start}` : `F-${start}–F-${prev}`);
    start = n;
    prev = n;
  }
  const odd = ids.filter((id) => numericId(id) === Number.MAX_SAFE_INTEGER);
  return [...out, ...odd];
}

/** Resolved findings are named, never shown: a count and their ids, capped at `maxRanges` ranges. */
export function resolvedLine(ids: readonly string[], taskId: string, maxRanges = 24): string {
  if (ids.length === 0) return "";
  const ranges = idRanges(ids);
  const shown = ranges.slice(0, maxRanges).join(", ");
  const more = ranges.length > maxRanges ? `, +${ranges.length - maxRanges} more ranges` : "";
  return (
    `Already resolved (not shown): ${ids.length} finding${ids.length === 1 ? "" : "s"} (${shown}${more}). ` +
    `\`fixpoint findings ${taskId}\` shows them.`
  );
}
