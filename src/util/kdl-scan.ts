/**
 * One linear pass over KDL text, before the KDL library sees it, for the two things the library
 * handles badly on hostile input:
 *
 * - nesting deeper than any fixpoint file needs (its recursive parser overflows the stack);
 * - a string with very many errors in it: the library locates each error by re-splitting the
 *   string from its start, so a megabyte string with an error on every line costs minutes (a
 *   raw string `#"…` left open over 40,000 lines: 83 s). Such a string is reported here, at its
 *   first error, without parsing.
 *
 * Strings and comments are found the way the library's tokenizer finds them, so a `{` or `"`
 * inside either counts for nothing. A string with fewer than MANY_ERRORS errors is left to the
 * library, which then reports every problem in the file as usual.
 */
export const MAX_KDL_DEPTH = 64;

/** From this many errors in one string on, the library's report would cost more than a parse. */
export const MANY_ERRORS = 32;

export interface KdlScanProblem {
  /** UTF-16 offset of the problem in the text. */
  offset: number;
  message: string;
}

const QUOTE = 0x22;
const HASH = 0x23;
const SLASH = 0x2f;
const STAR = 0x2a;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;

/** The first problem of either kind, or undefined: the library can be given the text. */
export function scanKdl(text: string): KdlScanProblem | undefined {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (c === QUOTE || (c === HASH && (next === QUOTE || next === HASH))) {
      const string = lexString(text, i);
      // Unterminated or malformed: the library stops there with one cheap error.
      if (string === undefined) return undefined;
      const problem = stringProblem(text, string);
      if (problem) return problem;
      i = string.end;
    } else if (c === SLASH && next === SLASH) {
      while (i < text.length && !isNewline(text.charCodeAt(i))) i++;
    } else if (c === SLASH && next === STAR) {
      i = blockCommentEnd(text, i + 2);
      if (i < 0) return undefined;
    } else {
      if (c === OPEN && ++depth > MAX_KDL_DEPTH) {
        return { offset: i, message: `invalid KDL: blocks nested more than ${MAX_KDL_DEPTH} deep` };
      }
      if (c === CLOSE) depth = Math.max(0, depth - 1);
      i++;
    }
  }
  return undefined;
}

/** 1-based line and column of `offset`, counted as the KDL library counts them. */
export function kdlPosition(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue;
    if (isNewline(c)) {
      line++;
      column = 1;
    } else if (c >= 0xdc00 && c <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))) {
      // the second half of a code point the column already counted
    } else if (!(c === 0xfeff && i === 0)) {
      column++;
    }
  }
  return { line, column };
}

/** A string token: where it starts and ends, and where its value lies between the delimiters. */
interface StringToken {
  start: number;
  end: number;
  valueStart: number;
  valueEnd: number;
  raw: boolean;
  multiline: boolean;
}

/** The string starting at `start` (a `"` or a `#`), or undefined where the library would throw. */
function lexString(text: string, start: number): StringToken | undefined {
  let i = start;
  let hashes = 0;
  while (text.charCodeAt(i) === HASH) {
    hashes++;
    i++;
  }
  if (text.charCodeAt(i) !== QUOTE) return undefined;
  i++;
  const raw = hashes > 0;
  let multiline = false;
  if (text.charCodeAt(i) === QUOTE) {
    if (text.charCodeAt(i + 1) === QUOTE) {
      if (text.charCodeAt(i + 2) === QUOTE) return undefined; // four quotes: the library throws
      multiline = true;
      i += 2;
    } else if (!raw) {
      return { start, end: i + 1, valueStart: i, valueEnd: i, raw, multiline };
    } else {
      // `#""` then as many hashes as opened it: the empty raw string; else the value goes on.
      const closing = countHashes(text, i + 1, Number.POSITIVE_INFINITY);
      if (closing === hashes)
        return { start, end: i + 1 + closing, valueStart: i, valueEnd: i, raw, multiline };
      const close = rawStringClose(text, i + 1 + closing, hashes, false);
      return close && { start, end: close.end, valueStart: i, valueEnd: close.valueEnd, raw, multiline };
    }
  }
  const valueStart = i;
  const close = raw ? rawStringClose(text, i, hashes, multiline) : quotedStringClose(text, i, multiline);
  if (close === undefined) return undefined;
  return { start, end: close.end, valueStart, valueEnd: close.valueEnd, raw, multiline };
}

/** Where a string closes: just past its closing delimiter, and where its value ends. */
interface Close {
  end: number;
  valueEnd: number;
}

/** The close of a `"` or `"""` string whose value starts at `from` (a backslash escapes what follows). */
function quotedStringClose(text: string, from: number, multiline: boolean): Close | undefined {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      if (!multiline) return { end: i + 1, valueEnd: i };
      if (text.charCodeAt(i + 1) === QUOTE && text.charCodeAt(i + 2) === QUOTE)
        return { end: i + 3, valueEnd: i };
      i += text.charCodeAt(i + 1) === QUOTE ? 2 : 1;
    } else {
      i += c === BACKSLASH ? 2 : 1;
    }
  }
  return undefined;
}

/** The close of a raw string opened with `hashes` hashes: its quote(s) and as many hashes. */
function rawStringClose(text: string, from: number, hashes: number, multiline: boolean): Close | undefined {
  let i = from;
  while (i < text.length) {
    if (text.charCodeAt(i) !== QUOTE) {
      i++;
      continue;
    }
    const valueEnd = i;
    i++;
    if (multiline) {
      if (text.charCodeAt(i) !== QUOTE) continue;
      i++;
      if (text.charCodeAt(i) !== QUOTE) continue;
      i++;
    }
    const closing = countHashes(text, i, hashes);
    i += closing;
    if (closing === hashes) return { end: i, valueEnd };
  }
  return undefined;
}

function countHashes(text: string, from: number, most: number): number {
  let n = 0;
  while (n < most && text.charCodeAt(from + n) === HASH) n++;
  return n;
}

/** Where the `/*` comment whose body starts at `from` ends (comments nest), or -1 at EOF. */
function blockCommentEnd(text: string, from: number): number {
  let level = 1;
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === STAR && text.charCodeAt(i + 1) === SLASH) {
      i += 2;
      if (--level === 0) return i;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      i += 2;
      level++;
    } else {
      i++;
    }
  }
  return -1;
}

/** The string's first error when it has MANY_ERRORS or more of the kinds the library locates slowly. */
function stringProblem(text: string, s: StringToken): KdlScanProblem | undefined {
  const lines = s.multiline ? misindentedLines(text, s) : unescapedNewlines(text, s);
  const escapes = s.raw ? { count: 0, first: -1 } : invalidUnicodeEscapes(text, s);
  const count = lines.count + escapes.count;
  if (count < MANY_ERRORS) return undefined;
  const lineFirst = lines.count > 0 && (escapes.count === 0 || lines.first < escapes.first);
  const what = !lineFirst
    ? "`\\u` must be followed by 1 to 6 hex digits in braces, as in \\u{1F600}"
    : s.multiline
      ? "every non-blank line of a multi-line string must start with the indentation of its last line"
      : `${s.raw ? "raw strings" : "strings"} with single quotes cannot contain unescaped newlines, use triple quotes for multi-line strings`;
  const { line, column } = kdlPosition(text, s.start);
  return {
    offset: lineFirst ? lines.first : escapes.first,
    message: `invalid KDL: ${what} (${count} errors like this in the string that starts at ${line}:${column})`,
  };
}

interface Errors {
  count: number;
  first: number;
}

/** Newlines in a single-line string that no backslash escapes (raw strings escape none). */
function unescapedNewlines(text: string, s: StringToken): Errors {
  const errors: Errors = { count: 0, first: -1 };
  for (let i = s.valueStart; i < s.valueEnd; i++) {
    const c = text.charCodeAt(i);
    if (!isNewline(c) || (s.raw ? false : escapedNewline(text, s.valueStart, i))) continue;
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
    if (errors.count++ === 0) errors.first = i;
  }
  return errors;
}

/**
 * Lines of a multi-line string that start without the indentation of its last line. Only counted
 * when the string is otherwise well formed (opens with a newline, ends with a line of whitespace):
 * the library reports the other shapes once.
 */
function misindentedLines(text: string, s: StringToken): Errors {
  const errors: Errors = { count: 0, first: -1 };
  const last = lastLine(text, s);
  if (last === undefined || !isNewline(text.charCodeAt(s.valueStart))) return errors;
  for (let i = s.valueStart; i < last.newline; i++) {
    const c = text.charCodeAt(i);
    if (!isNewline(c) || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a)) continue;
    if (!s.raw && escapedNewline(text, s.valueStart, i)) continue;
    let j = i + 1;
    while (j < s.valueEnd && isSpace(text.charCodeAt(j))) j++;
    if (j >= last.newline || isNewline(text.charCodeAt(j))) continue;
    if (text.slice(i + 1, j).startsWith(last.indent)) continue;
    if (errors.count++ === 0) errors.first = i + 1;
  }
  return errors;
}

/**
 * A multi-line string's last line: the newline before it and its whitespace (the indentation
 * every other line must start with), after whitespace escapes at the very end are taken away;
 * undefined when that line holds anything but whitespace.
 */
function lastLine(text: string, s: StringToken): { newline: number; indent: string } | undefined {
  let end = s.valueEnd;
  for (let i = end - 1; i >= s.valueStart && !s.raw; i--) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || isNewline(c)) continue;
    if (c !== BACKSLASH || escapedBackslash(text, s.valueStart, i)) break;
    end = i;
  }
  let i = end - 1;
  while (i >= s.valueStart && isSpace(text.charCodeAt(i))) i--;
  if (i < s.valueStart || !isNewline(text.charCodeAt(i))) return undefined;
  if (!s.raw && escapedNewline(text, s.valueStart, i)) return undefined;
  return { newline: i, indent: text.slice(i + 1, end) };
}

/** Whether an odd run of backslashes ends just before `at`: what is at `at` is escaped. */
function escapedBackslash(text: string, valueStart: number, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= valueStart && text.charCodeAt(i) === BACKSLASH; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** Whether the newline at `at` follows an odd run of backslashes (whitespace and newlines between). */
function escapedNewline(text: string, valueStart: number, at: number): boolean {
  let i = at - 1;
  while (i >= valueStart && (isSpace(text.charCodeAt(i)) || isNewline(text.charCodeAt(i)))) i--;
  // The escape's backslash is at i when an odd run ends there: as if a backslash followed it.
  return escapedBackslash(text, valueStart, i + 1);
}

/** `\u` escapes not followed by `{` and 1–6 hex digits and `}`: each one an error. */
function invalidUnicodeEscapes(text: string, s: StringToken): Errors {
  const errors: Errors = { count: 0, first: -1 };
  for (let i = s.valueStart; i < s.valueEnd; i++) {
    if (text.charCodeAt(i) !== BACKSLASH) continue;
    i++;
    if (text.charCodeAt(i) !== 0x75 /* u */ || /^\{[0-9a-fA-F]{1,6}\}/.test(text.slice(i + 1, i + 9)))
      continue;
    if (errors.count++ === 0) errors.first = i - 1;
  }
  return errors;
}

function isNewline(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x0b || c === 0x0c || c === 0x2028 || c === 0x2029;
}

function isSpace(c: number): boolean {
  return (
    c === 0x09 ||
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
