/**
 * CodeRabbit's severity line, `_⚠️ Potential issue_ | _🟠 Major_`: one to five italic markers with
 * `|` between them, white space around, nothing else. A marker is `_`, then 1–80 units, then `_`;
 * a unit is one code point other than `_` and a newline, or an emoji shortcode of older comments,
 * `:[a-z0-9_+-]{1,40}:`, which may hold `_` and counts as one unit.
 *
 * As a regular expression this backtracked: a shortcode's `:` reads either way, so a line of `:a`
 * pairs that failed at its end tried every split (a 90-character line: 4 s), and replacing the
 * shortcodes first chose one split where the pattern may take another (`_:warning:_:warning:_` is
 * a marker whose middle `:_:` is a shortcode). The line is read once instead, left to right,
 * keeping at each place every state the pattern can be in there: before a marker, inside the k-th
 * one with the fewest units it can have used, or after it. Fewest is enough: a marker only has an
 * upper bound on its units, and any marker that reaches a place has used one at least. Each place
 * is looked at once, and a shortcode read once from its `:`.
 */
import { isRegexSpace } from "../../util/regex-space.js";

const MARKERS = 5;
const UNITS = 80;
const SHORTCODE_MOST = 40;
/** The states of the places ahead: a place's states are written at most 42 places ahead of it. */
const WINDOW = 64;
const NONE = 255;

const UNDERSCORE = 0x5f;
const NEWLINE = 0x0a;
const COLON = 0x3a;
const PIPE = 0x7c;

/** Whether `line` is CodeRabbit's severity line (see above). */
export function isMarkerLine(line: string): boolean {
  const n = line.length;
  // Inside marker k + 1 (k done): the fewest units used, NONE when not reachable.
  const inside = new Uint8Array(MARKERS * WINDOW).fill(NONE);
  // After marker k (1–5), before a `|` or the end; before marker k + 1 (k 0–4), after the start or a `|`.
  const after = new Uint8Array((MARKERS + 1) * WINDOW);
  const before = new Uint8Array(MARKERS * WINDOW);
  before[0] = 1;
  let furthest = 0;
  for (let p = 0; p < n; ) {
    if (p > furthest) return false;
    const cp = line.codePointAt(p) as number;
    const next = p + (cp > 0xffff ? 2 : 1);
    const at = p % WINDOW;
    const to = next % WINDOW;
    const space = isRegexSpace(cp);
    let shortcode = -2;
    for (let k = 0; k < MARKERS; k++) {
      const u = inside[k * WINDOW + at] as number;
      if (u === NONE) continue;
      inside[k * WINDOW + at] = NONE;
      if (cp === UNDERSCORE) {
        if (u === 0) continue;
        after[(k + 1) * WINDOW + to] = 1;
        furthest = Math.max(furthest, next);
        continue;
      }
      if (u >= UNITS) continue;
      if (cp !== NEWLINE) furthest = Math.max(furthest, lower(inside, k * WINDOW + to, u + 1, next));
      if (cp !== COLON) continue;
      if (shortcode === -2) shortcode = shortcodeEnd(line, p);
      if (shortcode >= 0)
        furthest = Math.max(furthest, lower(inside, k * WINDOW + (shortcode % WINDOW), u + 1, shortcode));
    }
    for (let k = 1; k <= MARKERS; k++) {
      if (after[k * WINDOW + at] !== 1) continue;
      after[k * WINDOW + at] = 0;
      if (space) after[k * WINDOW + to] = 1;
      else if (cp === PIPE && k < MARKERS) before[k * WINDOW + to] = 1;
      else continue;
      furthest = Math.max(furthest, next);
    }
    for (let k = 0; k < MARKERS; k++) {
      if (before[k * WINDOW + at] !== 1) continue;
      before[k * WINDOW + at] = 0;
      if (space) before[k * WINDOW + to] = 1;
      else if (cp === UNDERSCORE) inside[k * WINDOW + to] = 0;
      else continue;
      furthest = Math.max(furthest, next);
    }
    p = next;
  }
  for (let k = 1; k <= MARKERS; k++) if (after[k * WINDOW + (n % WINDOW)] === 1) return true;
  return false;
}

/** Sets `states[i]` to `units` if that is fewer; returns `place`, where it now holds a state. */
function lower(states: Uint8Array, i: number, units: number, place: number): number {
  if (units < (states[i] as number)) states[i] = units;
  return place;
}

/** Where the shortcode opened by the `:` at `p` ends (after its closing `:`), or -1 when none is. */
function shortcodeEnd(line: string, p: number): number {
  let j = p + 1;
  while (j < line.length && j - p - 1 < SHORTCODE_MOST && inShortcode(line.charCodeAt(j))) j++;
  return j > p + 1 && line.charCodeAt(j) === COLON ? j + 1 : -1;
}

/** [a-z0-9_+-] */
function inShortcode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === UNDERSCORE || c === 0x2b || c === 0x2d;
}
