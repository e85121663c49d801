import { parseDuration as parseDurationText } from "../util/duration.js";

/**
 * Durations in workflow files: a duration string (`500ms`, `30s`, `10m`, `1h30m`, `1.5h`; see
 * src/util/duration.ts) or, as KDL allows a bare number, a number of milliseconds. Zero and
 * negative values are refused: a stage with no time to run is a mistake. Returns undefined for
 * anything else, so the caller can report it where it was written.
 */
export function parseDuration(value: string | number): number | undefined {
  const ms = typeof value === "number" ? Math.round(value) : parseDurationText(value);
  return ms !== null && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}
