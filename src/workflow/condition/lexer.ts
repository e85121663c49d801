/**
 * Tokens of the condition language (docs/workflows.md). Every token carries the 0-based offset of
 * its first character so errors can point at the exact column inside a `when="…"` string.
 */

export type Token =
  | { type: "number"; value: number; pos: number; text: string }
  | { type: "string"; value: string; pos: number; text: string }
  | { type: "ident"; value: string; pos: number; text: string }
  | { type: "op"; value: Operator; pos: number; text: string }
  | { type: "eof"; pos: number; text: "" };

export type Operator = "(" | ")" | "," | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" | "!" | "-";

export type LexResult = { ok: true; tokens: Token[] } | { ok: false; message: string; offset: number };

const TWO_CHAR_OPS: readonly Operator[] = ["==", "!=", "<=", ">=", "&&", "||"];
const ONE_CHAR_OPS: readonly Operator[] = ["(", ")", ",", "<", ">", "!", "-"];

/** Characters people reach for from other languages, with what to write instead. */
const MISTAKES: Readonly<Record<string, string>> = {
  "=": "`==`",
  "&": "`&&`",
  "|": "`||`",
  "'": 'double quotes (`"…"`)',
};

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", n: "\n", t: "\t" };

export function lex(text: string): LexResult {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? "";
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(text.slice(i));
      const raw = match?.[0] ?? ch;
      if (/[A-Za-z_]/.test(text[i + raw.length] ?? "")) {
        return { ok: false, message: `invalid number \`${raw}${text[i + raw.length]}…\``, offset: start };
      }
      tokens.push({ type: "number", value: Number(raw), pos: start, text: raw });
      i += raw.length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const raw = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))?.[0] ?? ch;
      tokens.push({ type: "ident", value: raw, pos: start, text: raw });
      i += raw.length;
      continue;
    }
    if (ch === '"') {
      const str = lexString(text, i);
      if (!str.ok) return str;
      tokens.push({ type: "string", value: str.value, pos: start, text: text.slice(start, str.end) });
      i = str.end;
      continue;
    }
    const two = text.slice(i, i + 2);
    const op = TWO_CHAR_OPS.find((o) => o === two) ?? ONE_CHAR_OPS.find((o) => o === ch);
    if (op !== undefined) {
      tokens.push({ type: "op", value: op, pos: start, text: op });
      i += op.length;
      continue;
    }
    const hint = MISTAKES[ch];
    const message =
      hint === undefined ? `unexpected character \`${ch}\`` : `unexpected \`${ch}\` (use ${hint})`;
    return { ok: false, message, offset: start };
  }
  tokens.push({ type: "eof", pos: text.length, text: "" });
  return { ok: true, tokens };
}

type StringResult = { ok: true; value: string; end: number } | { ok: false; message: string; offset: number };

/** A double-quoted string starting at `start`; `\"`, `\\`, `\n` and `\t` are the escapes. */
function lexString(text: string, start: number): StringResult {
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') return { ok: true, value, end: i + 1 };
    if (ch === "\\") {
      const next = text[i + 1] ?? "";
      const escaped = ESCAPES[next];
      if (escaped === undefined) {
        return { ok: false, message: `unknown escape \`\\${next}\` in string`, offset: i };
      }
      value += escaped;
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  return { ok: false, message: "unterminated string", offset: start };
}
