import type { ReviewVerdict } from "../domain/types.js";
import { isRegexSpace } from "../util/regex-space.js";
import { parseVerdict } from "./lenient.js";

/**
 * The last `**Verdict: X**`, `Verdict: X`, `## Verdict: X` line of a reply, and where its match
 * starts: the fallback of SPEC §7 for a reviewer that wrote no JSON.
 *
 * It finds what `/^[\s>#*_-]*verdict[\s*_]*[:：][\s*_`]*([A-Za-z][A-Za-z _-]*?)[\s*_`.]*$/gim`
 * finds (verdict-line.test.ts checks the two against each other), in time linear in the text.
 * That regex is quadratic on untrusted text: its leading `[\s>#*_-]*` runs on across lines from
 * every line start, and its lazy word retries the trailing class from every letter (16,000 blank
 * lines took 0.2 s, a 16,000-character line of `a _ _ _` 1 s; the fuzz suite's megabyte replies
 * never finished). Here each "verdict" is looked up once; its start is the earliest line start
 * that only those prefix characters separate from it; and the rest matches from the word on,
 * with the word taken whole (a lookahead and a back-reference: no backtracking into it).
 */
const PREFIX = new Set([..." \t\n\r\v\f>#*_-"]);
/** "verdict" as the regex's `i` flag finds it (ASCII letters only, as without the `u` flag). */
const WORD = /verdict/gi;
const REST = /verdict[\s*_]*[:：][\s*_`]*(?=([A-Za-z][A-Za-z _-]*))\1[\s*_`.]*$/imy;

export function verdictLine(text: string): { verdict: ReviewVerdict; at: number } | null {
  let found: { verdict: ReviewVerdict; at: number } | null = null;
  // Where the previous match ended: a match never starts inside another (the `g` flag's rule).
  let from = 0;
  WORD.lastIndex = 0;
  for (let w = WORD.exec(text); w !== null; w = WORD.exec(text)) {
    const v = w.index;
    const start = lineStartBefore(text, v, from);
    if (start < 0) continue;
    REST.lastIndex = v;
    const m = REST.exec(text);
    if (m === null) continue;
    const verdict = parseVerdict(m[1]);
    if (verdict) found = { verdict, at: start };
    // Never empty ("verdict" is in it): the next search starts where this match ended.
    from = REST.lastIndex;
    WORD.lastIndex = from;
  }
  return found;
}

/**
 * The earliest position in [from, v] that starts a line (0, or just after a newline) and from
 * which only PREFIX characters reach `v`; -1 when there is none. \s of the regex, as far as it
 * matters here, is the ASCII whitespace in PREFIX plus the Unicode spaces of isRegexSpace.
 */
function lineStartBefore(text: string, v: number, from: number): number {
  let p = v;
  while (p > from && isPrefix(text.charCodeAt(p - 1))) p--;
  // The run [p, v) holds only prefix characters; the match starts at its first line start.
  for (let q = p; q <= v; q++) {
    if (q === 0 || isLineEnd(text.charCodeAt(q - 1))) return q;
  }
  return -1;
}

function isPrefix(c: number): boolean {
  return PREFIX.has(String.fromCharCode(c)) || isRegexSpace(c);
}

/** Line terminators of `^` with the `m` flag. */
function isLineEnd(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}
