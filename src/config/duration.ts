/**
 * Durations in config files: one or more `<number><unit>` groups, units `ms`, `s`, `m`, `h`, `d`
 * (`"30m"`, `"1h30m"`, `"1.5s"`, `"500ms"`). A bare number is refused on purpose: `timeout=30`
 * could mean seconds or minutes, and guessing wrong kills an agent early or lets it run for hours.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const GROUP = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(GROUP)) {
    const amount = Number(match[1]);
    const unit = UNIT_MS[match[2] ?? ""];
    if (unit === undefined) return undefined;
    total += amount * unit;
  }
  return Math.round(total);
}

/** The shortest exact spelling of a duration, e.g. 1_800_000 → "30m"; used when writing configs. */
export function formatDuration(ms: number): string {
  const units: [string, number][] = [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ];
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const [unit, size] of units) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return rest > 0 ? `${out}${rest}ms` : out;
}
