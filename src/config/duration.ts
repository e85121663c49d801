import { formatDuration as format, parseDuration as parse } from "../util/duration.js";

/**
 * Durations in config files: one or more `<number><unit>` groups, units `ms`, `s`, `m`, `h`, `d`
 * (`"30m"`, `"1h30m"`, `"1.5s"`, `"500ms"`). A bare number is refused on purpose: `timeout=30`
 * could mean seconds or minutes, and guessing wrong kills an agent early or lets it run for hours.
 * Milliseconds, or undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  return parse(text) ?? undefined;
}

/** The spelling written into generated configs, e.g. 1_800_000 → "30m". */
export const formatDuration = format;
