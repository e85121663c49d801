import { FixpointError } from "../errors.js";
import { parseDuration } from "../util/duration.js";

/**
 * `since`: a duration back from `now` (`24h`, `7d`, `1h30m`), `all` (no bound: undefined), or an
 * ISO date or date-time (`2026-01-31`, `2026-01-31T08:00`). Anything else is a usage error naming
 * the accepted forms. Used by `status --since` and the dashboard's morning report.
 */
export function parseSince(value: string, now: number): number | undefined {
  const v = value.trim();
  if (v === "all") return undefined;
  const back = parseDuration(v);
  if (back !== null) return now - back;
  const at = Date.parse(v);
  if (/^\d{4}-\d{2}-\d{2}/.test(v) && Number.isFinite(at)) return at;
  throw new FixpointError(
    "usage",
    `since: \`${v}\` is not a duration (24h, 7d), \`all\` or a date (2026-01-31T08:00)`,
  );
}
