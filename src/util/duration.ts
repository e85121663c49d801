/** Human-readable durations: `500ms`, `45s`, `10m`, `1h30m`, `2d`. */

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/**
 * Parses `30s`, `10m`, `1h30m`, `500ms`, `1.5h`. Returns null for anything else, including a
 * bare number: a timeout of "30" is ambiguous and must not silently mean 30 ms.
 */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === "") return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (!m) return null;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return Math.round(total);
}

/**
 * Formats milliseconds for messages: below a second as `ms`, otherwise rounded to whole
 * seconds and written with the units that are not zero (`1h30m`, `1m5s`, `45s`).
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return `${ms}ms`;
  if (ms === 0) return "0ms";
  // Exact, so a written config reads back to the same value; displays round before calling.
  let rest = Math.round(ms);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
    ["ms", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join("");
}
